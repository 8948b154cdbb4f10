import { realpathSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { HookCommand } from '@cordon/plugin-api';
import { join as shellJoin } from 'shlex';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { HOST_ROOT } from '../util/host-root.js';
import { whichIn } from './files.js';

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
 * has (Codex uses a login shell, Hermes no shell at all): by default this Node binary and this
 * installation's `bin/run.cjs`, else `executable` (e.g. a global `cordon` shim), then
 * `hook --agent <agent>`. `shell` is POSIX-quoted where an argument needs it.
 */
export function hookCommand(agent: string, executable?: string, env: NodeJS.ProcessEnv = process.env): HookCommand {
  const argv = [...(executable ? [absoluteExecutable(executable, env)] : [process.execPath, cordonBinPath()]), 'hook', '--agent', agent];
  return Object.freeze({ argv: Object.freeze(argv), shell: shellJoin(argv), hasSpaces: argv.some((a) => /\s/.test(a)), fromFlag: executable !== undefined });
}

/**
 * `--command` made absolute, as agent configs need it: a path is resolved against the current
 * directory, a bare name is looked up on `PATH`. Throws `CORDON_BAD_INPUT` when a bare name is
 * not found.
 */
export function absoluteExecutable(executable: string, env: NodeJS.ProcessEnv = process.env): string {
  if (isAbsolute(executable)) return executable;
  if (executable.includes('/')) return resolve(executable);
  const found = whichIn(executable, env.PATH);
  if (!found) throw new CordonError(ERROR_CODES.BAD_INPUT, `--command ${executable}: not found on PATH; give an absolute path`, { details: { command: executable } });
  return found;
}
