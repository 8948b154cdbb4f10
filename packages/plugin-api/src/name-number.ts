/**
 * Numbers in the names of the files and directories cordon and its plugins write (lock
 * generations, pids and start times of owners): one rule, so a name planted by someone else is
 * never read as one of them (a pid `07` as pid 7, a lock `sampler.lock.1e3` as generation 1000).
 */

/**
 * A count or pid as cordon writes it into a file or directory name (`String(n)` of a positive
 * safe integer): a non-zero digit, then digits. As a regular-expression source, for a name's
 * shape that holds one (`^run-(${NAME_NUMBER})-…$`).
 */
export const NAME_NUMBER = '[1-9][0-9]*';

const WHOLE_NAME_NUMBER = new RegExp(`^${NAME_NUMBER}$`);

/**
 * The positive whole number `text` (the numbered part of a file name, such as the `7` of
 * `sampler.lock.7`) spells as cordon writes it, or `undefined` for anything else. `Number()`
 * reads `1e3`, ` 7`, `0x10`, `07`, `1.0` and `+7` as numbers too, so a file planted under such a
 * name would count as another one's; those are no number here, and neither is a value past
 * `Number.MAX_SAFE_INTEGER` (not held exactly, so `n + 1` could equal `n`). Never throws.
 */
export function nameNumber(text: string): number | undefined {
  if (!WHOLE_NAME_NUMBER.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}
