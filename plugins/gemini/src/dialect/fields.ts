/** Readers that never throw: a field of the wrong type reads as absent (payloads come from other programs). */

/** The string at `key`, or `undefined`. */
export function str(o: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const v = o[key];
  return typeof v === 'string' ? v : undefined;
}

/** The finite number at `key`, or `undefined`. */
export function num(o: Readonly<Record<string, unknown>>, key: string): number | undefined {
  const v = o[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The plain object at `key`, or `undefined`. */
export function obj(o: Readonly<Record<string, unknown>>, key: string): Record<string, unknown> | undefined {
  const v = o[key];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
