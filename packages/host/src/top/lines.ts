/** `line` parsed as a JSON object, or `undefined` (not JSON, or not an object): torn and foreign lines are skipped, never fatal. */
export function parseObject(line: string): Record<string, unknown> | undefined {
  if (line.charCodeAt(0) !== 0x7b) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `value` when it is a string, else `undefined` (fields of files an agent could have written). */
export function stringField(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `value` when it is a finite number, else `undefined`. */
export function numberField(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
