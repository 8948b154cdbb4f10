/**
 * True when `argv` asks for `--json` before any `--` (what oclif's `jsonEnabled` looks for). Its
 * own module: `bin/run.cjs` loads cli/environment.ts, which asks it, before `@oclif/core`.
 */
export function asksForJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}
