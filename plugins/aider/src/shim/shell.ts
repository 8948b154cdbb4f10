/**
 * The shell shim of `cordon wrap --shell-shim`: started as `$SHELL` (through the small launcher
 * script `wrap` writes) by an agent without hooks. For `-c <command>` it reports a `shell_start`
 * to `cordon hook --agent aider`, runs the real shell with the same arguments, reports a
 * `shell_end` with the exit code, and exits as the shell did. Anything else (an interactive shell,
 * a script) goes straight to the real shell. Reporting never stops the command: when the hook
 * fails, the command runs unrecorded.
 *
 * Environment (set by `wrap`): `CORDON_SHIM_SHELL` the real shell, `CORDON_WRAP_SESSION` the
 * session id, `CORDON_WRAP_DIR` its directory (holding `wrap.json` with the child's pid),
 * `CORDON_SHIM_CORDON` the cordon bin script.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AGENT_PID_ENV, type ShimPayload, type ShimReply } from '../dialect/protocol.js';
import { lendTerminal, shellExitCode } from '../foreground.js';
import { findCommand } from './args.js';

/** How long one report to `cordon hook` may take, ms. */
const REPORT_TIMEOUT_MS = 30_000;

/**
 * The text of the session's `wrap.json`, opened non-blocking and read only when it is a regular
 * file of at most 64 KiB (a FIFO in its place held every shell command the agent ran until
 * something wrote to it); throws otherwise. The plugin API's `readSettingsText` does the same,
 * but this shim imports nothing it does not need: it starts for every shell command.
 */
function readWrapRecord(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > 64 * 1024) throw new Error(`${path} is not a small regular file`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function agentPid(dir: string | undefined): number | undefined {
  if (!dir) return undefined;
  try {
    const pid = Number((JSON.parse(readWrapRecord(join(dir, 'wrap.json'))) as { child_pid?: unknown }).child_pid);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Sends one payload to `cordon hook --agent aider`; returns the decision it printed, if any. */
function report(payload: ShimPayload, env: NodeJS.ProcessEnv, pid: number | undefined): ShimReply | undefined {
  const bin = env.CORDON_SHIM_CORDON;
  if (!bin) return undefined;
  const result = spawnSync(process.execPath, [bin, 'hook', '--agent', 'aider'], {
    input: JSON.stringify(payload),
    env: { ...env, ...(pid !== undefined ? { [AGENT_PID_ENV]: String(pid) } : {}) },
    stdio: ['pipe', 'pipe', 'ignore'],
    timeout: REPORT_TIMEOUT_MS,
    encoding: 'utf8',
  });
  const out = (result.stdout ?? '').trim();
  if (!out) return undefined;
  try {
    const reply = JSON.parse(out) as ShimReply;
    return reply.decision === 'deny' || reply.decision === 'rewrite' ? reply : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `shell args` with the terminal, leaving Ctrl-C to it; resolves with its exit code (128 + signal when signalled). */
function runShell(shell: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; signal?: NodeJS.Signals }> {
  return new Promise((resolve) => {
    const child = spawn(shell, args, { stdio: 'inherit', env });
    // The shell shares the terminal's process group and gets Ctrl-C itself.
    const giveBack = lendTerminal(child);
    const done = (code: number, signal?: NodeJS.Signals): void => {
      giveBack();
      resolve(signal ? { code, signal } : { code });
    };
    child.on('error', () => done(127));
    child.on('exit', (code, signal) => done(shellExitCode(code, signal), signal ?? undefined));
  });
}

/** The shim's main: returns the exit code, or re-raises the shell's terminating signal. */
export async function main(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const real = env.CORDON_SHIM_SHELL || '/bin/sh';
  // The shell's own children see the real shell again: only the agent's commands are recorded.
  const childEnv: NodeJS.ProcessEnv = { ...env, SHELL: real };
  const found = findCommand(args);
  const session = env.CORDON_WRAP_SESSION;
  if (!found || !session) return (await runShell(real, args, childEnv)).code;
  const pid = agentPid(env.CORDON_WRAP_DIR);
  const base = { session_id: session, call_id: `sh-${process.pid}`, cwd: process.cwd() };
  let command = found.command;
  const decision = report({ hook_event_name: 'shell_start', ...base, command }, env, pid);
  if (decision?.decision === 'deny') {
    // The dialect wrote the reason through the host's redaction: a quoted command shows `***`. The
    // reason may quote the agent's command, so what a terminal would act on is escaped too (the
    // plugin API's rule, loaded only here: every other run of the shim does without it).
    const { shownLine } = await import('@cordon/plugin-api');
    process.stderr.write(`cordon: command refused: ${shownLine(String(decision.reason ?? ''))}\n`);
    return 126; // POSIX "found but cannot execute"; the agent never ran it, so no shell_end
  }
  const shellArgs = [...args];
  if (decision?.decision === 'rewrite' && decision.command) {
    command = decision.command;
    shellArgs[found.index] = command;
  }
  const started = performance.now();
  const { code, signal } = await runShell(real, shellArgs, childEnv);
  report({ hook_event_name: 'shell_end', ...base, command, exit_code: code, duration_ms: Math.round(performance.now() - started) }, env, pid);
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  return code;
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    () => process.exit(127),
  );
}
