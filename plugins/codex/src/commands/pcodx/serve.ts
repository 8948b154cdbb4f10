import { Flags } from '@oclif/core';
import { isTerminal, type LedgerHandle } from '@cordon/plugin-api';
import { PcodxCommand, terminalEscape } from '../../pcodx/command.js';
import { serveLog, runServe } from '../../pcodx/serve/command.js';

export default class PcodxServe extends PcodxCommand {
  static override summary = 'Proxy between a Codex client (codex --remote) and `codex app-server`, with live partial compaction under --enable-pcodx-tools';
  static override description = [
    'Starts `codex app-server` on a unix socket in an owner-only directory only this serve knows (unless --no-launch-upstream), proves the listener is that process, listens on --listen (by default a unix socket in the same directory) and relays each client connection over its own upstream connection until SIGINT/SIGTERM/SIGHUP. The app-server stops with the serve on every kind of exit (a watchdog stops it even after SIGKILL); the next serve cleans up what a lost one left.',
    'A TCP --listen requires a capability token: $PCODX_SERVE_TOKEN if set, else a new one in the owner-only file printed as token_file=; clients pass it with --remote-auth-token-env PCODX_SERVE_TOKEN. The token is never printed.',
    'Prints key=value lines on stdout once ready (listen=, upstream=, upstream_pid=, token_file=, token_env=, connect=, pcodx_tools=, session_id=); connect= is the exact `codex --remote …` line to run (`codex exec` takes the same flags). Events go to stderr as `pcodx-serve event=… key=value` lines, never conversation text or tokens.',
    'With --enable-pcodx-tools the pcodx tools are offered on primary threads and answered from the ledger session (--session, else the last-written one, else a new one); completed turns are ingested; after a compaction the next turn runs on a fresh thread seeded with the render.',
    'PCODX_LIVE_CONTEXT_DIR records every injected item list in owner-only files; PCODX_WS_FIXTURE_DIR captures every frame.',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> <%= command.id %> --enable-pcodx-tools --session demo',
    '<%= config.bin %> <%= command.id %> --listen ws://127.0.0.1:48570',
    '<%= config.bin %> <%= command.id %> --no-launch-upstream --upstream unix:///run/user/1000/codex.sock',
  ];
  static override flags = {
    listen: Flags.string({ summary: 'Where clients connect: unix:// (a socket in the serve\'s own directory), unix:///PATH (in an owner-only directory) or ws://HOST:PORT (token required; port 0: a free port).', default: 'unix://' }),
    upstream: Flags.string({ summary: 'Where the launched app-server listens: unix:// (a socket in the serve\'s own directory) or ws://IP:PORT (capability token); with --no-launch-upstream, the address of yours.', default: 'unix://' }),
    'codex-bin': Flags.string({ summary: 'The codex executable that runs `app-server`.', default: 'codex' }),
    'no-launch-upstream': Flags.boolean({ summary: 'Do not start an app-server; relay to one you started, listening on --upstream (its identity is yours to vouch for).' }),
    'upstream-auth-token-env': Flags.string({ summary: 'With --no-launch-upstream: the environment variable holding the token your app-server requires (--ws-auth capability-token).', dependsOn: ['no-launch-upstream'] }),
    'enable-pcodx-tools': Flags.boolean({ summary: 'Offer partial_compact and friends, ingest turns and route compacted turns to fresh threads.' }),
    'allow-remote': Flags.boolean({ summary: 'Accept a non-loopback --listen address (anyone who reaches it can drive your Codex).' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxServe);
    const escape = await terminalEscape();
    const options = {
      listen: flags.listen,
      upstream: flags.upstream,
      launch: !flags['no-launch-upstream'],
      codexBin: flags['codex-bin'],
      allowRemote: flags['allow-remote'],
      upstreamTokenEnv: flags['upstream-auth-token-env'],
      log: serveLog(escape),
      // On a terminal the banner is escaped as every pcodx command's output is; piped, it is data.
      bannerEscape: escape && isTerminal(1) ? escape : undefined,
    };
    if (!flags['enable-pcodx-tools']) {
      await runServe(options, undefined);
      return;
    }
    await this.withLedger(
      flags.db,
      async (ledger: LedgerHandle) => {
        await runServe(options, { ledger, session: flags.session, cwd: flags.cwd });
      },
      true,
      flags.session,
    );
  }
}
