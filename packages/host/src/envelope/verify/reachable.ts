import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { whichIn } from '../../install-hooks/files.js';
import { splitCommand } from './spec.js';

/** A verifier whose program cannot be started from here now ({@link unstartableVerifiers}). */
export interface UnstartableVerifier {
  /** The `--verify` command as given. */
  readonly command: string;
  /** Its program (the first word). */
  readonly program: string;
  /** `is not on PATH`, `does not exist` (a path) or `is not executable` (a path). */
  readonly why: string;
}

/**
 * The verifiers of `commands` whose program `cordon check` could not start if it ran now: a
 * bare name that no directory of `env.PATH` holds as an executable file (on Windows with
 * `PATHEXT`, as `child_process` finds it), or a path, taken from the repository `root` as the
 * verifiers' working directory, that is missing or not executable. For a warning at arm time
 * only: the program may yet appear (a dependency installed later), and check decides.
 */
export function unstartableVerifiers(commands: readonly string[], root: string, env: NodeJS.ProcessEnv = process.env): UnstartableVerifier[] {
  const out: UnstartableVerifier[] = [];
  for (const command of commands) {
    const program = splitCommand(command)[0]!;
    if (!program.includes('/') && !(process.platform === 'win32' && program.includes('\\'))) {
      if (!whichIn(program, env.PATH)) out.push({ command, program, why: 'is not on PATH' });
      continue;
    }
    const file = isAbsolute(program) ? program : resolve(root, program);
    const stat = statSync(file, { throwIfNoEntry: false });
    if (!stat?.isFile()) {
      out.push({ command, program, why: 'does not exist' });
      continue;
    }
    try {
      accessSync(file, constants.X_OK);
    } catch {
      out.push({ command, program, why: 'is not executable' });
    }
  }
  return out;
}
