import { spawn } from 'node:child_process';
import { existsSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger, ProcessService, RedactService, TelemetryService } from '@cordon/plugin-api';
import { lendTerminal, shellExitCode } from '../foreground.js';
import { writeShellLauncher } from './launcher.js';
import { defaultSessionId } from './session-name.js';

/**
 * This process's working directory for the markers: `process.cwd()`, or, when the directory was
 * deleted (Node throws ENOENT), the kernel's name for it (`/tmp/x (deleted)`); the agent still
 * starts in it.
 */
function workingDirectoryName(): string {
  try {
    return process.cwd();
  } catch {
    try {
      return readlinkSync('/proc/self/cwd');
    } catch {
      return '(deleted working directory)';
    }
  }
}

/** Input of {@link runWrapped}. */
export interface WrapOptions {
  /** The command and its arguments (what follows `--`). */
  readonly argv: readonly string[];
  /** `api.services.telemetry`: markers and the sampler. */
  readonly telemetry: TelemetryService;
  /**
   * `api.services.redact.argv`: the command as the session records it (marker, `wrap.json`), its
   * secrets as `***`. Without it (a host older than the service) `wrap.json` leaves argv out.
   */
  readonly redactArgv?: RedactService['argv'];
  /** `api.services.process.describeStartFailure`: the host's words and status for a command that cannot start. */
  readonly describeStartFailure: ProcessService['describeStartFailure'];
  /** `api.services.process.startProblem`: whether the command would start, asked before it is (a host older than it has none). */
  readonly startProblem?: ProcessService['startProblem'];
  /** Session id (the command checks a user's with `sessionFlagProblem`); default `defaultSessionId()`. */
  readonly sessionId?: string;
  /** Set `SHELL` to the cordon shim so each `$SHELL -c` command gets markers. */
  readonly shellShim?: boolean;
  /** The cordon bin script the shim reports through (`cordon hook --agent aider`). */
  readonly cordonBin: string;
  /** Environment of the child (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  readonly log?: Logger;
  /**
   * `--json`: the child's stdout is relayed through the wrapper (so its last byte is known and the
   * record can start on a line of its own) instead of inherited; stdin and stderr stay inherited.
   */
  readonly relayStdout?: boolean;
  /**
   * Called once for a command that starts, so that what it says names a session that is recorded
   * and comes before the command's own first lines: just before the spawn when `startProblem`
   * finds nothing in the way (after it, a quick command's first line can come first), else as
   * soon as the spawn returned a pid (the exec succeeded). Not called for a command that cannot
   * start: it records no session.
   */
  readonly onStart?: (sessionId: string) => void;
}

/** How the wrapped command ended. */
export interface WrapResult {
  readonly sessionId: string;
  /** The child's exit code; 128 + signal number when a signal ended it; 127 when it was not found, 126 when it could not be executed. */
  readonly exitCode: number;
  readonly signal?: NodeJS.Signals;
  readonly childPid?: number;
  /** Why it could not start, in the host's words (`cannot start 'x': not found on PATH`). */
  readonly startError?: string;
  /** The session's directory (markers, samples). */
  readonly sessionDir?: string;
  /** With `relayStdout`: whether the child's output ended without a newline. */
  readonly openLine?: boolean;
  /**
   * Set when the session's sampler had not written its last samples within
   * {@link SAMPLER_FLUSH_TIMEOUT_MS} of the session's end: what the session reports may still grow
   * (the command prints it on stderr).
   */
  readonly samplerNote?: string;
}

/**
 * How long, at most, `wrap` waits after its child's exit for the session's sampler to write its
 * last samples and its `stop` event, ms. The sampler notices the child's exit at its next tick (one
 * interval, 250 ms by default) and `STOP` within a second; the rest is slack for a loaded machine.
 */
export const SAMPLER_FLUSH_TIMEOUT_MS = 5_000;

/**
 * `cordon wrap`: runs an agent that has no hooks (Aider) as a direct child with the terminal
 * passed through, records the session (uncoalesced/cordon; Aider has no hooks):
 * a `session_start` marker with the child's pid, one detached sampler on the child's tree (no
 * idle timeout: the wrapper knows the agent is alive; its span starts at the child's spawn), and on
 * exit a `session_end` marker and `STOP`, after which it waits (at most
 * {@link SAMPLER_FLUSH_TIMEOUT_MS}) until the sampler has written its last samples, so the session
 * is complete when this returns (`cordon wrap -- x && cordon reduce`); a sampler still writing then
 * is reported in `samplerNote`. While the child runs the wrapper passes SIGTERM and SIGHUP on, and SIGINT and SIGQUIT
 * too unless stdin is a terminal (then the child, in the same foreground process group, gets
 * Ctrl-C from the terminal and the wrapper ignores them); see `lendTerminal`.
 *
 * With `shellShim`, `SHELL` names a launcher for the shim (`shim/shell.ts`) and the original shell
 * goes to `CORDON_SHIM_SHELL`; `wrap.json` in the session directory tells the shim the child's pid.
 *
 * Never throws for the child's failures: a command that cannot start yields no session, 127
 * when it was not found and 126 when it could not be executed (`describeStartFailure`).
 */
export async function runWrapped(options: WrapOptions): Promise<WrapResult> {
  const { telemetry, argv } = options;
  const sessionId = options.sessionId ?? defaultSessionId();
  const dir = telemetry.sessionDir(sessionId);
  // A command that cannot start leaves no session behind (nothing to reduce): what this call made
  // for it (the shell shim's directory) goes again.
  const dirExisted = existsSync(dir);
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env), CORDON_WRAP_SESSION: sessionId, CORDON_WRAP_DIR: dir };
  if (options.shellShim) {
    env.CORDON_SHIM_SHELL = env.SHELL && !env.SHELL.endsWith('/cordon-shell') ? env.SHELL : '/bin/sh';
    env.CORDON_SHIM_CORDON = options.cordonBin;
    env.SHELL = writeShellLauncher(join(dir, 'shim'));
  }
  const base = { session_id: sessionId, agent: 'aider', cwd: workingDirectoryName() } as const;

  const cannotStart = (error: unknown): WrapResult => {
    const { message, status } = options.describeStartFailure(argv[0]!, error, { env });
    if (!dirExisted) {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch (removeError) {
        options.log?.warn('wrap: could not remove the session directory of a command that did not start', { dir, error: String(removeError) });
      }
    }
    return { sessionId, exitCode: status, startError: message };
  };
  let child: ReturnType<typeof spawn>;
  // Without a terminal the agent gets a process group of its own, so a signal sent to the
  // wrapper's group reaches it once, forwarded (lendTerminal).
  const ownGroup = process.stdin.isTTY !== true;
  let announced = false;
  const announce = (): void => {
    if (announced) return;
    announced = true;
    options.onStart?.(sessionId);
  };
  // Before the spawn when nothing is in the way, so the line comes before the command's first one.
  if (options.startProblem !== undefined && options.startProblem(argv[0]!, { env }) === undefined) announce();
  try {
    child = spawn(argv[0]!, argv.slice(1), { stdio: ['inherit', options.relayStdout ? 'pipe' : 'inherit', 'inherit'], env, detached: ownGroup });
  } catch (error) {
    return cannotStart(error);
  }
  // Node returns from spawn once the exec succeeded or failed (libuv waits for it); only a
  // started command has a pid (a host without startProblem, or a program that appeared since).
  if (child.pid !== undefined) announce();
  const started = await new Promise<{ ok: true } | { ok: false; error: Error }>((resolve) => {
    child.once('spawn', () => resolve({ ok: true }));
    child.once('error', (error) => resolve({ ok: false, error }));
  });
  if (!started.ok) return cannotStart(started.error);
  // The command runs from here: the session's sampled span starts now, not at the sampler's first tick.
  const spawnedAt = Date.now();

  const pid = child.pid!;
  let last = 0x0a;
  const relayed = options.relayStdout
    ? new Promise<void>((resolve) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          last = chunk[chunk.length - 1]!;
          process.stdout.write(chunk);
        });
        child.stdout!.once('close', () => resolve());
      })
    : Promise.resolve();
  const giveBack = lendTerminal(child, ownGroup);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    try {
      // Recorded with its secrets as `***` (the host's redaction, argv-aware: `--password 'a b'`).
      const shown = options.redactArgv?.(argv);
      telemetry.appendMarker({ ...base, event: 'session_start', native_event: 'wrap-start', command: (shown ?? argv).join(' '), agent_pid: pid });
      // Owner-only like the markers beside it: argv is the user's command line.
      writeFileSync(join(dir, 'wrap.json'), JSON.stringify({ child_pid: pid, wrapper_pid: process.pid, ...(shown ? { argv: shown } : {}) }) + '\n', { mode: 0o600 });
      const sampler = telemetry.startSampler({ sessionId, rootPid: pid, idle: false, since: spawnedAt });
      if (!sampler.started && sampler.reason !== 'running') options.log?.info('wrap: session not sampled', { sessionId, reason: sampler.reason });
    } catch (error) {
      options.log?.error('wrap: could not record the session start', { sessionId, error: String(error) });
    }
    const { code, signal } = await exited;
    const exitCode = shellExitCode(code, signal);
    // The session ends now, before the wait for trailing output below: the marker's time is the
    // span's end (reduce), and a sampler that sees the exit first stops at its next tick.
    try {
      telemetry.appendMarker({ ...base, event: 'session_end', native_event: 'wrap-exit', agent_pid: pid, exit_code: exitCode, exit_status: exitCode === 0 ? 'ok' : 'failed' });
    } catch (error) {
      options.log?.error('wrap: could not record the session end', { sessionId, error: String(error) });
    }
    // A background job may hold the pipe open: relay what comes within a moment, then stop.
    await Promise.race([relayed, new Promise((r) => setTimeout(r, 200).unref())]);
    child.stdout?.destroy();
    try {
      telemetry.stopSampler(sessionId);
    } catch (error) {
      options.log?.error('wrap: could not stop the sampler', { sessionId, error: String(error) });
    }
    const samplerNote = await awaitFinalSamples(telemetry, sessionId, options.log);
    return { sessionId, exitCode, childPid: pid, sessionDir: dir, ...(signal ? { signal } : {}), ...(options.relayStdout ? { openLine: last !== 0x0a } : {}), ...(samplerNote ? { samplerNote } : {}) };
  } finally {
    giveBack();
  }
}

/**
 * Waits (at most {@link SAMPLER_FLUSH_TIMEOUT_MS}) for the session's sampler to write its last
 * samples; returns the note for the user when it did not, else `undefined`. A host without
 * `awaitSamplerStop` (older than this plugin) is not waited for. Never throws.
 */
async function awaitFinalSamples(telemetry: TelemetryService, sessionId: string, log: Logger | undefined): Promise<string | undefined> {
  if (typeof telemetry.awaitSamplerStop !== 'function') return undefined;
  try {
    const outcome = await telemetry.awaitSamplerStop(sessionId, SAMPLER_FLUSH_TIMEOUT_MS);
    if (outcome !== 'timeout') return undefined;
    log?.warn('wrap: the sampler had not finished writing', { sessionId, timeoutMs: SAMPLER_FLUSH_TIMEOUT_MS });
    return `the sampler of session ${sessionId} was still writing ${SAMPLER_FLUSH_TIMEOUT_MS / 1000} s after the command ended; \`cordon reduce\` shows the session as live until it finishes`;
  } catch (error) {
    log?.error('wrap: could not wait for the sampler', { sessionId, error: String(error) });
    return undefined;
  }
}
