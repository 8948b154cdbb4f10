import { lazyPackage } from '../util/lazy-package.js';
import { isSymlink, readRegularFile, UnsafeReadError } from '../io/safe-read.js';
import { join } from 'node:path';
import { CordonError, ERROR_CODES, type JsonDetails } from '../errors/index.js';
import { globListProblem } from './glob.js';
import { DEFAULT_LIMITS, isPlainObject, labelProblem, policyProblem, type Policy } from './policy/policy.js';
import { DEFAULT_VERIFY_OUTPUT_CAP, DEFAULT_VERIFY_TIMEOUT_SECONDS, MAX_VERIFY_TIMEOUT_SECONDS, verifySpecProblem, type VerifySpec } from './verify/spec.js';
import { numberValueProblem, type NumberRule } from '../util/number-range.js';
import { parseJsonText, repeatedKey, repeatedKeyWords } from '../util/json-syntax.js';
import { closestName } from '../util/closest-name.js';
import { firstNonUtf8 } from '../util/utf8.js';

/**
 * Envelope settings as a user gives them: `cordon arm`/`check --base` flags or the optional
 * `.cordon.json` at the repository root. Every field is optional; {@link resolveSettings}
 * layers them (flags over file over defaults) and validates the result.
 */
export interface SettingsInput {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly allowIgnored?: readonly string[];
  readonly maxFiles?: number;
  readonly maxAddedLines?: number;
  readonly maxDeletedLines?: number;
  readonly maxWorkingBytes?: number;
  readonly maxBinaryFiles?: number;
  readonly allowCommits?: boolean;
  readonly verify?: readonly string[];
  /** Seconds per verifier. */
  readonly verifyTimeout?: number;
  /** Bytes per verifier output stream. */
  readonly verifyOutputCap?: number;
  readonly maxAttempts?: number;
  /** Turn the live envelope on (`--live`, `"live": true`): the hook refuses writes outside the policy before they happen. */
  readonly live?: boolean;
}

/** Resolved, validated settings. */
export interface EnvelopeSettings {
  readonly policy: Policy;
  readonly verify: VerifySpec;
  readonly max_attempts: number;
  /** Whether the live envelope is on (default off for `cordon arm`; `cordon run` turns it on). */
  readonly live: boolean;
}

/** Default `--max-attempts` (the BEKO2210/SkillQuarry cordon). */
export const DEFAULT_MAX_ATTEMPTS = 3;

/** Name of the optional policy file at the repository root. */
export const POLICY_FILE = '.cordon.json';

/**
 * What each numeric setting accepts, as a flag (cli/envelope-flags.ts) and as a `.cordon.json`
 * key alike; a refusal echoes the value and says this range (util/number-range.ts).
 */
export const SETTING_NUMBERS = Object.freeze({
  'max-files': { integer: true, min: 0 },
  'max-added-lines': { integer: true, min: 0 },
  'max-deleted-lines': { integer: true, min: 0 },
  'max-working-bytes': { integer: true, min: 0, unit: 'bytes' },
  'max-binary-files': { integer: true, min: 0 },
  'verify-timeout': { integer: false, min: 0, aboveMin: true, max: MAX_VERIFY_TIMEOUT_SECONDS, unit: 'seconds' },
  'verify-output-cap': { integer: true, min: 1, unit: 'bytes' },
  'max-attempts': { integer: true, min: 1 },
} satisfies Record<string, NumberRule>);

/**
 * `.cordon.json` keys: the flag names without `--`, so the file reads like the command line.
 * Value kinds: globs/commands are string lists, numbers as {@link SETTING_NUMBERS} says, the rest below.
 */
const FILE_KEYS: Readonly<Record<string, { field: keyof SettingsInput; kind: 'list' | 'number' | 'bool' }>> = {
  allow: { field: 'allow', kind: 'list' },
  deny: { field: 'deny', kind: 'list' },
  'allow-ignored': { field: 'allowIgnored', kind: 'list' },
  'max-files': { field: 'maxFiles', kind: 'number' },
  'max-added-lines': { field: 'maxAddedLines', kind: 'number' },
  'max-deleted-lines': { field: 'maxDeletedLines', kind: 'number' },
  'max-working-bytes': { field: 'maxWorkingBytes', kind: 'number' },
  'max-binary-files': { field: 'maxBinaryFiles', kind: 'number' },
  'allow-commits': { field: 'allowCommits', kind: 'bool' },
  verify: { field: 'verify', kind: 'list' },
  'verify-timeout': { field: 'verifyTimeout', kind: 'number' },
  'verify-output-cap': { field: 'verifyOutputCap', kind: 'number' },
  'max-attempts': { field: 'maxAttempts', kind: 'number' },
  live: { field: 'live', kind: 'bool' },
};

/**
 * Parses the text of a `.cordon.json` (`source` names it in errors; `path`, where it was read,
 * follows a syntax error's line and column). Throws `CORDON_BAD_INPUT`
 * (exit 2) naming the file and key for invalid JSON (where: `line 3, column 1`), a non-object, a key given twice (both places), an unknown key, a value of
 * the wrong kind, or an invalid glob or verifier (`.cordon.json: verify: too many verify commands: 9 > 8`). `$schema` and `//` (a comment) are accepted and ignored.
 */
export function parsePolicyFile(text: string, source: string, path?: string): SettingsInput {
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    throw bad(`${source} is not valid JSON: ${(error as Error).message}${path === undefined ? '' : ` (${path})`}`);
  }
  if (!isPlainObject(value)) throw bad(`${source} must hold a JSON object`);
  // JSON.parse keeps the last of a repeated key: `"allow"` twice would drop the first list unseen.
  const repeated = repeatedKey(text, value);
  if (repeated) throw bad(`${source}: ${repeatedKeyWords(repeated)}${path === undefined ? '' : ` (${path})`}`, { key: repeated.key, ...(path === undefined ? {} : { path }) });
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === '$schema' || key === '//') continue;
    // Own keys only: `toString`, `constructor` or `__proto__` (an own key after JSON.parse) would
    // otherwise find Object.prototype's members and be taken, unchecked, as known.
    const spec = Object.hasOwn(FILE_KEYS, key) ? FILE_KEYS[key] : undefined;
    if (!spec) {
      // A mistyped key gets the one it most likely meant, as a mistyped flag does.
      const meant = closestName(key, Object.keys(FILE_KEYS));
      throw bad(`${source}: unknown key ${JSON.stringify(key)}${meant === undefined ? '' : ` (did you mean ${JSON.stringify(meant)}?)`} (known: ${Object.keys(FILE_KEYS).join(', ')})`);
    }
    const where = `${source}: "${key}"`;
    switch (spec.kind) {
      case 'list':
        if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw bad(`${where} must be a list of strings`);
        break;
      case 'number': {
        const rule = SETTING_NUMBERS[key as keyof typeof SETTING_NUMBERS];
        // Echoed as the file writes it (`1e30`, not JavaScript's `1e+30`): read again on this error path only.
        const problem = numberValueProblem(v, rule);
        if (problem) throw bad(`${where}: ${numberValueProblem(v, rule, typeof v === 'number' ? numberTextOf(text, key) : undefined) ?? problem}`);
        break;
      }
      case 'bool':
        if (typeof v !== 'boolean') throw bad(`${where} must be true or false`);
        break;
    }
    if (spec.kind === 'list' && key !== 'verify') {
      const problem = globListProblem(`${where} entry`, v as string[]);
      if (problem) throw bad(problem);
    }
    const problem = valueProblem(key, v);
    if (problem) throw bad(`${source}: ${key}: ${problem}`);
    out[spec.field] = v;
  }
  return out as SettingsInput;
}

/** jsonc-parser, loaded only on the error path that needs a number's written form. */
const jsonc = lazyPackage<typeof import('jsonc-parser')>('jsonc-parser');

/**
 * The number literal `text` (a JSON object, already parsed without error) gives its top-level
 * `key`, as written (`1e30`, `-0.0`), the last one when the key repeats as `JSON.parse` takes the
 * last; undefined when the key holds no number. Read from jsonc-parser's syntax tree, whose nodes
 * keep their offsets in `text`.
 */
export function numberTextOf(text: string, key: string): string | undefined {
  const properties = jsonc().parseTree(text)?.children ?? [];
  const value = properties.filter((p) => p.children?.[0]?.value === key).at(-1)?.children?.[1];
  return value?.type === 'number' ? text.slice(value.offset, value.offset + value.length) : undefined;
}

/**
 * What is wrong with one `.cordon.json` value on its own (verifier commands and count; globs are
 * checked before, under their key;
 * numbers are checked against {@link SETTING_NUMBERS} before), so the error names the file and key rather than the flag that
 * {@link resolveSettings} would name after merging. Problems of the merged whole (no `allow`
 * at all, too many globs in total) are left to {@link resolveSettings}.
 */
function valueProblem(key: string, value: unknown): string | undefined {
  if (key === 'verify') {
    const spec = { commands: value, timeout_seconds: DEFAULT_VERIFY_TIMEOUT_SECONDS, output_cap: DEFAULT_VERIFY_OUTPUT_CAP };
    return verifySpecProblem(spec)?.replaceAll(`--${key}`, key);
  }
  return undefined;
}

/**
 * The bytes of a `.cordon.json` as text, refusing one holding a byte that is not UTF-8
 * (`CORDON_BAD_INPUT`, exit 2, naming `source`, the byte and where, as an editor counts it):
 * decoded as it is, such a byte became U+FFFD, so a glob written in another encoding
 * (`"deny": ["geheim\xe4/**"]` in Latin-1) was armed as a different glob that matches nothing
 * the repository holds, without a word. `path`, where it was read, follows the message.
 */
export function policyFileText(bytes: Buffer, source: string, path?: string): string {
  const at = firstNonUtf8(bytes);
  if (at < 0) return bytes.toString('utf8');
  const before = bytes.subarray(0, at).toString('utf8').split('\n');
  throw bad(
    `${source} is not UTF-8: byte 0x${bytes[at]!.toString(16).padStart(2, '0')} at line ${before.length}, column ${before[before.length - 1]!.length + 1}; save it as UTF-8 (a name that is not UTF-8 can be written as a \\udcXX escape, as cordon --json shows it)${path === undefined ? '' : ` (${path})`}`,
    { ...(path === undefined ? {} : { path }) },
  );
}

/** Largest `.cordon.json` read (a policy is a few hundred bytes). */
export const POLICY_FILE_MAX_BYTES = 1024 * 1024;

/**
 * Reads `<root>/.cordon.json` if present (undefined when absent); errors as {@link parsePolicyFile}.
 * The file is committed by whoever controls the repository, so it is read with
 * `readRegularFile`: a symbolic link is followed only when it stays inside the
 * work tree, only a regular file of at most {@link POLICY_FILE_MAX_BYTES} is read, nothing blocks,
 * and a refusal (`CORDON_BAD_INPUT`, exit 2) names the path and why, never the file's content.
 */
export function readPolicyFile(root: string): SettingsInput | undefined {
  let bytes: Buffer;
  const path = join(root, POLICY_FILE);
  try {
    bytes = readRegularFile(path, { maxBytes: POLICY_FILE_MAX_BYTES, links: 'within-root', root });
  } catch (error) {
    if (error instanceof UnsafeReadError) {
      if (error.reason === 'missing' && !isSymlink(path)) return undefined;
      throw bad(`cannot read ${POLICY_FILE}: ${error.message}`);
    }
    throw bad(`cannot read ${POLICY_FILE}: ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parsePolicyFile(policyFileText(bytes, POLICY_FILE, path), POLICY_FILE, path);
}

/**
 * Layers `inputs` (later wins, field by field: pass the file first, then the flags) over the
 * reference's defaults (the BEKO2210/SkillQuarry cordon) and validates the result (globs, limits, verifiers,
 * attempts). Throws `CORDON_BAD_INPUT` (exit 2) with the first problem.
 */
export function resolveSettings(...inputs: ReadonlyArray<SettingsInput | undefined>): EnvelopeSettings {
  const merged: Record<string, unknown> = {};
  for (const input of inputs) for (const [k, v] of Object.entries(input ?? {})) if (v !== undefined) merged[k] = v;
  const m = merged as SettingsInput;
  // A glob `.cordon.json` gave was checked under its key (parsePolicyFile): what is left came from a flag.
  const globBad = globListProblem('--allow', m.allow ?? []) ?? globListProblem('--deny', m.deny ?? []) ?? globListProblem('--allow-ignored', m.allowIgnored ?? []);
  if (globBad) throw bad(globBad);
  const policy = {
    allow: [...(m.allow ?? [])],
    deny: [...(m.deny ?? [])],
    allow_ignored: [...(m.allowIgnored ?? [])],
    allow_commits: m.allowCommits ?? false,
    limits: {
      max_files: m.maxFiles ?? DEFAULT_LIMITS.max_files,
      max_added_lines: m.maxAddedLines ?? DEFAULT_LIMITS.max_added_lines,
      max_deleted_lines: m.maxDeletedLines ?? DEFAULT_LIMITS.max_deleted_lines,
      max_working_bytes: m.maxWorkingBytes ?? DEFAULT_LIMITS.max_working_bytes,
      max_binary_files: m.maxBinaryFiles ?? DEFAULT_LIMITS.max_binary_files,
    },
  };
  const problem = policyProblem(policy);
  if (problem) throw bad(problem);
  const verify = { commands: [...(m.verify ?? [])], timeout_seconds: m.verifyTimeout ?? DEFAULT_VERIFY_TIMEOUT_SECONDS, output_cap: m.verifyOutputCap ?? DEFAULT_VERIFY_OUTPUT_CAP };
  const verifyBad = verifySpecProblem(verify);
  if (verifyBad) throw bad(verifyBad);
  const attempts = m.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isSafeInteger(attempts) || attempts < 1) throw bad('--max-attempts must be an integer >= 1');
  return { policy, verify, max_attempts: attempts, live: m.live ?? false };
}

/** Validates and trims a label; throws `CORDON_BAD_INPUT` (the BEKO2210/SkillQuarry cordon). */
export function checkLabel(label: string): string {
  const problem = labelProblem(label);
  if (problem) throw bad(problem);
  return label.trim();
}

function bad(message: string, details?: JsonDetails): CordonError {
  return new CordonError(ERROR_CODES.BAD_INPUT, message, details === undefined ? undefined : { details });
}
