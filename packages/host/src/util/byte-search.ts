/**
 * `Uint8Array.prototype.indexOf`, V8's own builtin, taken once. `Buffer#indexOf` (and
 * `includes`) first passes its arguments through Node's validation layer, which makes an
 * arguments array on every call: without V8's optimising compiler (the fast `check` runs with
 * `--no-opt`, bin/run.cjs) about 4x the builtin's time per call and a throwaway array each
 * (`npm run bench:envelope`: one call per git record, one per line of an untracked file).
 */
const typedIndexOf = Uint8Array.prototype.indexOf;

/**
 * Index of the first `byte` (0–255) in `bytes` at or after `from` (default 0), or -1. The same
 * answer as `Buffer#indexOf(byte, from)` for a number and a non-negative `from`.
 */
export function indexOfByte(bytes: Uint8Array, byte: number, from = 0): number {
  return typedIndexOf.call(bytes, byte, from);
}
