import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HookCommand } from '@cordon/plugin-api';
import { join as shellJoin } from 'shlex';

/** The `cordon` entry script of this installation, with symlinks resolved. */
export function cordonBinPath(): string {
  const bin = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
  try {
    return realpathSync(bin);
  } catch {
    return bin;
  }
}

/**
 * The command agents run for `agent`, absolute so it works whatever `PATH` the agent's hook shell
 * has (Codex uses a login shell, Hermes no shell at all): by default this Node binary and this
 * installation's `bin/run.js`, else `executable` (e.g. a global `cordon` shim), then
 * `hook --agent <agent>`. `shell` is POSIX-quoted where an argument needs it.
 */
export function hookCommand(agent: string, executable?: string): HookCommand {
  const argv = [...(executable ? [executable] : [process.execPath, cordonBinPath()]), 'hook', '--agent', agent];
  return Object.freeze({ argv: Object.freeze(argv), shell: shellJoin(argv), hasSpaces: argv.some((a) => /\s/.test(a)) });
}
