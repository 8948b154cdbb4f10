import { realpathSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { HookCommand } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { HOST_ROOT } from '../util/host-root.js';
import { whichIn } from './files.js';
import { commandProblem } from '../process/start-failure.js';
import { cmdCommand } from './quote/cmd.js';
import { posixCommand } from './quote/posix.js';
import { powershellCommand } from './quote/powershell.js';

/** The `cordon` entry script of this installation, with symlinks resolved. */
export function cordonBinPath(): string {
  const bin = join(HOST_ROOT, 'bin', 'run.cjs');
  try {
    return realpathSync(bin);
  } catch {
    return bin;
  }
}

/**
 * The command agents run for `agent`, absolute so it works whatever `PATH` the agent's hook shell
 * has (Codex uses a login shell, Hermes no shell at all): by default this Node binary
 * (`process.execPath`, `node.exe` on Windows) and this installation's `bin/run.cjs`, else
 * `executable` (e.g. a global `cordon` shim), then `hook --agent <agent>`; in every shell form
 * (see {@link commandFromArgv}). `platform` (default `process.platform`) is the platform the
 * agents run on: `win32` makes installers write the Windows forms.
 */
export function hookCommand(agent: string, executable?: string, env: NodeJS.ProcessEnv = process.env, platform: string = process.platform): HookCommand {
  const argv = [...(executable ? [absoluteExecutable(executable, env, platform)] : [process.execPath, cordonBinPath()]), 'hook', '--agent', agent];
  return commandFromArgv(argv, executable !== undefined, platform);
}

/**
 * The command written into a project's config (`--scope project`), a file teams commit: the bare
 * `cordon hook --agent <agent>`, found on `PATH` on each machine, since this machine's absolute
 * Node and cordon paths would not exist on a teammate's.
 */
export function portableHookCommand(agent: string, platform: string = process.platform): HookCommand {
  return commandFromArgv(['cordon', 'hook', '--agent', agent], true, platform);
}

/**
 * A {@link HookCommand} for `argv`: the POSIX form (`shell`), the PowerShell form and the cmd.exe
 * form, each built by the quoting module of that shell (quote/posix.ts, quote/powershell.ts,
 * quote/cmd.ts). The Windows forms are built only for `win32` (elsewhere they hold the POSIX
 * form, which no installer writes there), so a Unix path that PowerShell could not take never
 * stops an install on Linux or macOS.
 * @throws CordonError `CORDON_BAD_INPUT` on `win32` when an element holds what the PowerShell or
 *   cmd.exe form cannot carry (`"`, a line break, NUL, a trailing `\`).
 */
export function commandFromArgv(argv: readonly string[], fromFlag: boolean, platform: string): HookCommand {
  const shell = posixCommand(argv);
  const windows = platform === 'win32';
  return Object.freeze({
    argv: Object.freeze([...argv]),
    platform,
    shell,
    powershell: windows ? powershellCommand(argv) : shell,
    cmd: windows ? cmdCommand(argv) : shell,
    hasSpaces: argv.some((a) => /\s/.test(a)),
    fromFlag,
  });
}

/**
 * `--command` made absolute, as agent configs need it: a path (holding `/`, or `\` on Windows) is
 * resolved against the current directory, a bare name is looked up on `PATH` (with `PATHEXT` on
 * Windows, so `cordon` finds `cordon.cmd`). Throws `CORDON_BAD_INPUT` when a bare name is not
 * found.
 */
export function absoluteExecutable(executable: string, env: NodeJS.ProcessEnv = process.env, platform: string = process.platform): string {
  if (isAbsolute(executable)) return executable;
  if (executable.includes('/') || (platform === 'win32' && executable.includes('\\'))) return resolve(executable);
  const found = whichIn(executable, env.PATH, platform, env.PATHEXT);
  if (!found) throw new CordonError(ERROR_CODES.BAD_INPUT, `--command ${executable}: not found on PATH; give an absolute path`, { details: { command: executable } });
  return found;
}

/**
 * Refuses an install's `--command` that could not start here, before anything is planned or
 * written: the agents would run it on every tool call and fail each time, which only `cordon
 * doctor` would say later. The program is made absolute as {@link absoluteExecutable} does and
 * looked at as a start would find it (process/start-failure.ts `commandProblem`: missing, a
 * directory, not executable, a `#!` interpreter that is missing). Commands written for another
 * platform (`platform` not this one) are not looked at: their paths are that machine's.
 * @throws CordonError `CORDON_BAD_INPUT` naming the flag's value and what is wrong.
 */
export function checkHookExecutable(executable: string, env: NodeJS.ProcessEnv = process.env, platform: string = process.platform): void {
  const absolute = absoluteExecutable(executable, env, platform);
  if (platform !== process.platform) return;
  const problem = commandProblem(absolute, { env });
  if (problem) {
    const shown = absolute === executable ? executable : `${executable} (${absolute})`;
    throw new CordonError(ERROR_CODES.BAD_INPUT, `--command ${shown}: ${problem.why}, so the agents could not run the hook; give the path of a cordon executable, or leave --command out to write this node and this cordon`, { details: { command: executable } });
  }
}
