/**
 * The argv `control guard`'s rewrite runs a tool call with (plugins/cgroup-linux
 * guard/decision.ts `guardedCommand`): `bash -c <script> cordon-guard <state dir> <command>`. Its
 * `$0` is this name.
 */
export const GUARD_ARGV0 = 'cordon-guard';

/**
 * The tool call's own command when `argv` is the guard's rewrite ({@link GUARD_ARGV0}), else
 * undefined. `control run` takes such a run for an agent's call; `cordon reduce` joins it to the
 * call's marker by that command (guard-join.ts).
 */
export function guardRewriteCommand(argv: readonly string[]): string | undefined {
  return argv.length === 6 && argv[0] === 'bash' && argv[1] === '-c' && argv[3] === GUARD_ARGV0 ? argv[5] : undefined;
}
