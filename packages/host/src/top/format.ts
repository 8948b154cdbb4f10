/** How long something ran, as `m:ss`, `h:mm:ss`, or `Nd hh:mm` from a day on (htop's TIME+ without hundredths). */
export function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const two = (n: number): string => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)}:${two(s % 60)}`;
  if (s < 86_400) return `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return `${Math.floor(s / 86_400)}d ${two(Math.floor((s % 86_400) / 3600))}:${two(Math.floor((s % 3600) / 60))}`;
}

/** MiB as `512M`, `9.5M`, `1.2G` (binary units, as `top` shows them). */
export function mebibytes(mb: number): string {
  if (mb >= 1024) return `${(mb / 1024).toFixed(1)}G`;
  if (mb < 10) return `${mb.toFixed(1)}M`;
  return `${Math.round(mb)}M`;
}

/** % of one core as `38.0` (one decimal; above 100 on several cores). */
export function percent(pct: number): string {
  return pct.toFixed(1);
}

/** A wall-clock time as `HH:MM:SS`, local time. */
export function timeOfDay(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
