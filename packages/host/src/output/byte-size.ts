/** Binary units from the largest down, with their size in bytes. */
const UNITS: ReadonlyArray<readonly [string, number]> = [
  ['TiB', 2 ** 40],
  ['GiB', 2 ** 30],
  ['MiB', 2 ** 20],
  ['KiB', 2 ** 10],
];

/**
 * A byte count as people read it, in the binary units cordon labels sizes with elsewhere (MiB in
 * `reduce`, `analyze`, `control run`): `13 B`, `2 MiB` (2097152), `1.5 KiB` (1536), `976.6 KiB`
 * (1000000): whole multiples of a unit without a decimal, others to one decimal. A negative or
 * non-finite count is printed as the number.
 */
export function byteSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return String(bytes);
  for (const [unit, size] of UNITS) {
    if (bytes < size) continue;
    const whole = bytes % size === 0;
    return `${whole ? bytes / size : (bytes / size).toFixed(1)} ${unit}`;
  }
  return `${bytes} B`;
}
