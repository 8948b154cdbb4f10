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
 * was upgraded away), or `undefined` when both are there or the command cannot be read (see
 * {@link words}). Only absolute paths are looked at: a bare `cordon` is found on each machine's `PATH`.
 */
export function goneProgram(command: string): GoneProgram | undefined {
  const argv = words(command);
  if (!argv) return undefined;
  const [program, script] = argv;
  if (script !== undefined && /\.(c|m)?js$/.test(script) && isAbsolute(script) && !existsSync(script)) return { what: 'cordon', path: script };
  if (program !== undefined && isAbsolute(program) && !existsSync(program)) return { what: /(^|[\\/])node(\.exe)?$/i.test(program) ? 'node' : 'cordon', path: program };
  return undefined;
}

/**
 * The words of a hook command in the forms install writes (quote/): the PowerShell form (`& '…'
 * '…' hook …`, where a single quote inside quotes is doubled) read by PowerShell's single-quote
 * rule, one without quotes split at its blanks (the bare form, backslashes and all), anything else
 * as a POSIX shell would (shlex). The cmd.exe form (carets, `""`) is not read:
 * `undefined`, as for a command shlex cannot split, so nothing is claimed about its paths.
 */
function words(command: string): string[] | undefined {
  if (/^\s*&\s/.test(command)) {
    const out: string[] = [];
    for (const m of command.replace(/^\s*&\s+/, '').matchAll(/'((?:[^']|'')*)'|(\S+)/g)) out.push(m[1] !== undefined ? m[1].replace(/''/g, "'") : m[2]!);
    return out;
  }
  if (/\^|""/.test(command)) return undefined;
  // No quotes: the words are what the blanks separate (Windows' bare form keeps its backslashes).
  if (!/['"]/.test(command)) return command.trim().split(/\s+/);
  try {
    return shlex().split(command);
  } catch {
    return undefined;
  }
}
