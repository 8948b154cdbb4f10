/**
 * What one numeric setting accepts (a flag such as `--max-files` or `--verify-timeout`, or its
 * `.cordon.json` key): whole numbers or fractions, and the range.
 */
export interface NumberRule {
  /** Whole numbers only (counts, bytes), or fractions too (seconds, dollars). */
  readonly integer: boolean;
  /** The smallest value accepted, inclusive unless {@link aboveMin}. */
  readonly min: number;
  /** The value must be greater than {@link min}, not equal to it (a time limit of 0 limits nothing). */
  readonly aboveMin?: boolean;
  /**
   * The largest value accepted, inclusive. Default: `Number.MAX_SAFE_INTEGER` for whole numbers
   * (a larger one is not held exactly), no limit for fractions beyond being finite.
   */
  readonly max?: number;
  /** What the number counts, said in the message: `seconds`, `bytes`, `US dollars`. */
  readonly unit?: string;
}

/** A fraction as plain digits: `5`, `0.25`, `.5`, `5.`; no sign, exponent, blank, hex or `Infinity`. */
const DECIMAL = /^(\d+\.?\d*|\.\d+)$/;
/** A whole number as plain digits: `0`, `25`; no sign, exponent or blank. */
const WHOLE = /^\d+$/;

/**
 * What `rule` accepts, in words: `an integer from 0 to 9007199254740991`, `a whole number of
 * bytes from 1 to 9007199254740991`, `a number of seconds greater than 0 and at most 604800`, `a
 * number of US dollars greater than 0`.
 */
export function rangeText(rule: NumberRule): string {
  const what = rule.integer ? (rule.unit ? `a whole number of ${rule.unit}` : 'an integer') : `a number${rule.unit ? ` of ${rule.unit}` : ''}`;
  const max = maxOf(rule);
  if (!rule.aboveMin) return max === undefined ? `${what} of at least ${rule.min}` : `${what} from ${rule.min} to ${max}`;
  return max === undefined ? `${what} greater than ${rule.min}` : `${what} greater than ${rule.min} and at most ${max}`;
}

/**
 * Reads `text` (a flag's value as typed) as a number `rule` accepts: plain decimal digits only
 * (with a `.` fraction when `rule` takes fractions, a leading `-` only when its minimum is
 * negative), so ` 5`, `+5`, `1e3` and `0x10` are refused alike, whatever `Number()` would make of
 * them.
 * @throws Error `expected <range> but received: "<text>"` ({@link rangeText}; the text as given,
 *   JSON-quoted so that an empty value or a blank in it shows), for a value that is not written
 *   that way or is out of range.
 */
export function parseNumberText(text: string, rule: NumberRule): number {
  const digits = rule.min < 0 && text.startsWith('-') ? text.slice(1) : text;
  const value = (rule.integer ? WHOLE : DECIMAL).test(digits) ? Number(text) : Number.NaN;
  if (!accepts(value, rule)) throw new Error(receivedProblem(rule, JSON.stringify(text)));
  return value;
}

/**
 * Why `value` (a number read from JSON, such as a `.cordon.json` key) is not one `rule` accepts,
 * in the words of {@link parseNumberText} (`expected … but received: -1`), or undefined.
 * `written` is the value as the file spells it (`1e30`, which JavaScript would print `1e+30`);
 * without it a string is JSON-quoted, and a number whose JavaScript spelling may not be the
 * file's (an exponent) is not echoed: the caller's message names the key.
 */
export function numberValueProblem(value: unknown, rule: NumberRule, written?: string): string | undefined {
  if (typeof value === 'number' && accepts(value, rule)) return undefined;
  if (written !== undefined) return receivedProblem(rule, written);
  if (typeof value === 'string') return receivedProblem(rule, JSON.stringify(value));
  if (typeof value === 'number' && Number.isFinite(value) && /e/i.test(String(value))) return `expected ${rangeText(rule)}`;
  return receivedProblem(rule, String(value));
}

function receivedProblem(rule: NumberRule, received: string): string {
  return `expected ${rangeText(rule)} but received: ${received}`;
}

function accepts(value: number, rule: NumberRule): boolean {
  if (!Number.isFinite(value) || (rule.integer && !Number.isSafeInteger(value))) return false;
  if (rule.aboveMin ? value <= rule.min : value < rule.min) return false;
  const max = maxOf(rule);
  return max === undefined || value <= max;
}

function maxOf(rule: NumberRule): number | undefined {
  return rule.max ?? (rule.integer ? Number.MAX_SAFE_INTEGER : undefined);
}
