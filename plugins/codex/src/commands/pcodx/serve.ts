import { Flags } from '@oclif/core';
import type { LedgerHandle } from '@cordon/plugin-api';
import { PcodxCommand } from '../../pcodx/command.js';
import { serveLog, runServe } from '../../pcodx/serve/command.js';

export default class PcodxServe extends PcodxCommand {
  static override summary = 'Proxy between a Codex client (codex --remote) and `codex app-server`, with live partial compaction under --enable-pcodx-tools';
  static override description = [
    'Starts `codex app-server --listen <upstream>` (unless --no-launch-upstream), listens on --listen and relays each client connection over its own upstream connection until SIGINT/SIGTERM. Run `codex --remote ws://127.0.0.1:PORT` or `codex exec --remote …` against it.',
    'Prints key=value lines on stdout once ready (listen=, upstream=, upstream_pid=, pcodx_tools=, session_id=); events go to stderr as `pcodx-serve event=… key=value` lines, never conversation text.',
    'With --enable-pcodx-tools the pcodx tools are offered on primary threads and answered from the ledger session (--session, else the last-written one, else a new one); completed turns are ingested; after a compaction the next turn runs on a fresh thread seeded with the render.',
    'PCODX_LIVE_CONTEXT_DIR records every injected item list in owner-only files; PCODX_WS_FIXTURE_DIR captures every frame.',
  ].join('\n\n');
  static override examples = ['<%= config.bin %> <%= command.id %> --enable-pcodx-tools --session demo', '<%= config.bin %> <%= command.id %> --listen ws://127.0.0.1:0 --upstream ws://127.0.0.1:48571 --no-launch-upstream'];
  static override flags = {
    listen: Flags.string({ summary: 'Where clients connect (port 0: a free port, printed as listen=).', default: 'ws://127.0.0.1:48570' }),
    upstream: Flags.string({ summary: 'The app-server to relay to (launched there unless --no-launch-upstream; port 0: a free port).', default: 'ws://127.0.0.1:48571' }),
    'codex-bin': Flags.string({ summary: 'The codex executable that runs `app-server`.', default: 'codex' }),
    'no-launch-upstream': Flags.boolean({ summary: 'Do not start an app-server; relay to one already listening on --upstream.' }),
    'enable-pcodx-tools': Flags.boolean({ summary: 'Offer partial_compact and friends, ingest turns and route compacted turns to fresh threads.' }),
    'allow-remote': Flags.boolean({ summary: 'Accept a non-loopback --listen address (anyone who reaches it can drive your Codex).' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxServe);
    const options = {
      listen: flags.listen,
      upstream: flags.upstream,
      launch: !flags['no-launch-upstream'],
      codexBin: flags['codex-bin'],
      allowRemote: flags['allow-remote'],
      log: serveLog,
    };
    if (!flags['enable-pcodx-tools']) {
      await runServe(options, undefined);
      return;
    }
    await this.withLedger(flags.db, async (ledger: LedgerHandle) => {
      await runServe(options, { ledger, session: flags.session, cwd: flags.cwd });
    });
  }
}
