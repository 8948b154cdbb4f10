import { commandProblem } from '../../process/start-failure.js';
import { splitCommand } from './spec.js';

/** A verifier whose program cannot be started from here now ({@link unstartableVerifiers}). */
export interface UnstartableVerifier {
  /** The `--verify` command as given. */
  readonly command: string;
  /** Its program (the first word). */
  readonly program: string;
  /** Why, in the words of a failed start: `not found on PATH`, `no such file`, `is a directory`, `not executable` … (process/start-failure.ts). */
  readonly why: string;
}

/**
 * The verifiers of `commands` whose program `cordon check` could not start if it ran now: a
 * bare name that no directory of `env.PATH` holds as an executable file (on Windows with
 * `PATHEXT`, as `child_process` finds it), or a path, taken from the repository `root` as the
 * verifiers' working directory, that is missing, a directory or not executable. For a warning at
 * arm time only: the program may yet appear (a dependency installed later), and check decides.
 */
export function unstartableVerifiers(commands: readonly string[], root: string, env: NodeJS.ProcessEnv = process.env): UnstartableVerifier[] {
  const out: UnstartableVerifier[] = [];
  for (const command of commands) {
    const program = splitCommand(command)[0]!;
    const problem = commandProblem(program, { cwd: root, env });
    if (problem) out.push({ command, program, why: problem.why });
  }
  return out;
}
