import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { lazyPackage } from '../util/lazy-package.js';

const shlex = lazyPackage<{ split(command: string): string[] }>('shlex');

/** The program of an old hook command that is no longer there: `what` it was and its `path`. */
export interface GoneProgram {
  /** `cordon` (its `bin/run.cjs`, or a `cordon` executable) or `node` (the interpreter before it). */
  readonly what: 'cordon' | 'node';
  readonly path: string;
}

/**
 * What an old cordon hook command ran that no longer exists (cordon moved or was uninstalled, node
 * was upgraded away), or `undefined` when both are there or the command cannot be read. The
 * command is split as a POSIX shell would (the PowerShell form's leading `&` dropped); only
 * absolute paths are looked at: a bare `cordon` is found on each machine's `PATH`.
 */
export function goneProgram(command: string): GoneProgram | undefined {
  let argv: string[];
  try {
    argv = shlex().split(command);
  } catch {
    return undefined;
  }
  if (argv[0] === '&') argv.shift();
  const [program, script] = argv;
  if (script !== undefined && /\.(c|m)?js$/.test(script) && isAbsolute(script) && !existsSync(script)) return { what: 'cordon', path: script };
  if (program !== undefined && isAbsolute(program) && !existsSync(program)) return { what: /(^|[\\/])node(\.exe)?$/i.test(program) ? 'node' : 'cordon', path: program };
  return undefined;
}
