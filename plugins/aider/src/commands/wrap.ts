import type { CordonServices } from '@cordon/plugin-api';
import { Command, Flags } from '@oclif/core';
import { hostApi } from '../api.js';
import { runWrapped } from '../wrap/run-wrapped.js';
import { defaultSessionId, sessionFlagProblem } from '../wrap/session-name.js';
import { wrapNotice } from '../wrap/notice.js';

export default class Wrap extends Command {
  static override summary = 'Run an agent that has no hooks (Aider) and record its session: markers, process-tree samples, optional per-command markers';
  static override description = [
    'Runs the command after `--` as a direct child with the terminal passed through, writes session start and end markers',
    'with its pid, samples its process tree until it exits, and exits with its exit code (127 when it is not found, 126 when it cannot be executed).',
    'With --shell-shim, SHELL points at a cordon shim so every `$SHELL -c` command the agent runs gets before and after',
    'markers (reported through `cordon hook --agent aider`). Reduce the session with `cordon reduce --session <id>`.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> -- aider --yes-always --message "make the tests pass"',
    '<%= config.bin %> <%= command.id %> --shell-shim --session fix-42 -- aider',
    "<%= config.bin %> <%= command.id %> -- sh -c 'npm test'",
  ];

  static override usage = '<%= command.id %> [--shell-shim] [--session <value>] [--json] -- <command> [<argument>...]';

  static override strict = false;

  /** The command comes after `--`: given without it, the host refuses the line with the corrected one. */
  static commandAfterDashes = true;

  static override flags = {
    'shell-shim': Flags.boolean({ description: 'Set SHELL to a cordon shim so each shell command the agent runs gets tool markers' }),
    session: Flags.string({ description: "Session id to record under: a new plain name (letters, digits, '.', '_', '-'; default wrap-<unix seconds>-<pid>), printed on stderr at the start" }),
    json: Flags.boolean({ description: "After the command, print one JSON record on a line of its own: session_id, session_dir, child_pid, exit_code, signal (the command's stdout is relayed through cordon, not a terminal)" }),
  };

  async run(): Promise<void> {
    // oclif parses what comes before the first `--` only: its parser reads every token again per
    // token (20,000 arguments took seconds), and the command's words are not its to read.
    const given = this.argv;
    const dashes = given.indexOf('--');
    const { flags, raw } = await this.parse(Wrap, dashes >= 0 ? given.slice(0, dashes) : given);
    // The command exactly as typed: oclif's non-strict `argv` reorders repeated words (`sh -c
    // 'echo "$@"' sh a b` came back as `sh sh -c …`), its raw tokens keep the order.
    const command = [...raw.filter((token) => token.type === 'arg').map((token) => token.input), ...(dashes >= 0 ? given.slice(dashes + 1) : [])];
    if (command.length === 0) this.error('give the command to run after --, e.g. `cordon wrap -- aider`', { exit: 2, code: 'CORDON_BAD_INPUT' });
    // No system call starts an empty name; refused as `control run` refuses it.
    if (command[0] === '') this.error("the program name after -- is empty (''): give the command to run, e.g. `cordon wrap -- aider`", { exit: 2, code: 'CORDON_BAD_INPUT' });
    const api = await hostApi();
    // Checked before anything runs or is written: a bad or used name loses nothing.
    const problem = flags.session === undefined ? undefined : sessionFlagProblem(api.services.telemetry, flags.session);
    if (problem !== undefined) this.error(problem, { exit: 2, code: 'CORDON_BAD_INPUT' });
    const sessionId = flags.session ?? defaultSessionId();
    const notice = wrapNotice(api.services);
    const result = await runWrapped({
      argv: command,
      telemetry: api.services.telemetry,
      describeStartFailure: api.services.process.describeStartFailure,
      ...(api.services.process.startProblem ? { startProblem: api.services.process.startProblem } : {}),
      // Optional: a host older than the service has none.
      ...(api.services.redact ? { redactArgv: api.services.redact.argv } : {}),
      sessionId,
      shellShim: flags['shell-shim'],
      cordonBin: process.argv[1]!,
      log: api.log,
      relayStdout: flags.json,
      // The id on stderr once, when the command has started and before its first output (stdout
      // is the agent's), so the session can be found afterwards; a command that cannot start
      // records no session and is not announced. --json puts it in its record instead.
      ...(flags.json ? {} : { onStart: () => notice(`session ${sessionId} (cordon reduce --session ${sessionId})`) }),
    });
    if (result.startError !== undefined) notice(result.startError);
    if (result.samplerNote !== undefined) notice(result.samplerNote);
    if (flags.json) {
      const record = { session_id: result.sessionId, session_dir: result.sessionDir ?? null, child_pid: result.childPid ?? null, exit_code: result.exitCode, signal: result.signal ?? null, ...(result.startError !== undefined ? { start_error: result.startError } : {}), ...(result.samplerNote !== undefined ? { sampler_note: result.samplerNote } : {}) };
      // The host's JSON text (start_error may quote the command as typed); a host before the service lends none.
      const json = (api.services.terminal as CordonServices['terminal'] | undefined)?.json ?? JSON.stringify;
      process.stdout.write(`${result.openLine ? '\n' : ''}${json(record)}\n`);
    }
    // Dies of the agent's signal (a Ctrl-C ends a shell loop of wrapped steps), else its exit code.
    api.services.process.endLike({ code: result.signal ? null : result.exitCode, signal: result.signal ?? null });
  }
}
