/** How long something ran, as `m:ss`, `h:mm:ss`, or `Nd hh:mm` from a day on (htop's TIME+ without hundredths). */
export function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const two = (n: number): string => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)}:${two(s % 60)}`;
  if (s < 86_400) return `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return `${Math.floor(s / 86_400)}d ${two(Math.floor((s % 86_400) / 3600))}:${two(Math.floor((s % 3600) / 60))}`;
}

/** The units {@link mebibytes} scales MiB to, each 1024 of the one before. */
const MEM_UNITS = ['G', 'T', 'P', 'E'] as const;

/**
 * MiB as `512M`, `9.5M`, `1.2G`, and on through `T`, `P`, `E` (binary units, as `top` shows them),
 * so any value up to 16 EiB (`MAX_MEM_MB`) takes at most 7 columns and is never cut; `null` (a
 * value that cannot be real) is `-`.
 */
export function mebibytes(mb: number | null): string {
  if (mb === null || !Number.isFinite(mb) || mb < 0) return '-';
  if (mb < 10) return `${mb.toFixed(1)}M`;
  if (mb < 1024) return `${Math.round(mb)}M`;
  let value = mb / 1024;
  let unit = 0;
  // 1023.96 rounds to 1024.0: that is the next unit's 1.0.
  while (unit < MEM_UNITS.length - 1 && Number(value.toFixed(1)) >= 1024) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)}${MEM_UNITS[unit]}`;
}

/**
 * % of one core as `38.0` (one decimal; above 100 on several cores), from 1000 without the decimal
 * and from 100,000 in thousands (`250k`), so it fits five columns up to `MAX_CPU_PCT`; `null` (a
 * value that cannot be real) is `-`.
 */
export function percent(pct: number | null): string {
  if (pct === null || !Number.isFinite(pct) || pct < 0) return '-';
  if (pct < 999.95) return pct.toFixed(1);
  if (pct < 99_999.5) return String(Math.round(pct));
  return `${Math.round(pct / 1000)}k`;
}

/** A wall-clock time as `HH:MM:SS`, local time. */
export function timeOfDay(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
