// The snake_case rule of cordon's JSON outputs (docs/reference.md "JSON output"), for tests
// that read a report in a state only they set up (doctor's rarer findings, say).

/** Objects whose keys are names (a hook's, a plugin's), not fields: `info`'s `taps`. */
const NAME_MAPS = new Set(['taps']);

/** Every key of `value` that is not snake_case, as `path.key` (`findings[3].details.bothScopes`). */
export function nonSnakeKeys(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => nonSnakeKeys(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const here = path ? `${path}.${key}` : key;
    const own = NAME_MAPS.has(path) || /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/.test(key) ? [] : [here];
    return [...own, ...nonSnakeKeys(v, here)];
  });
}
