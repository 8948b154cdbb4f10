import { cutText } from '@cordon/plugin-api';
import { MAX_COMMAND_CHARS, MAX_ERROR_CHARS } from '../telemetry/markers.js';
import { redactText } from '../output/redact.js';
import { sortedJson } from '../util/sorted-json.js';

/** Input keys tried, in order, for a one-line summary (uncoalesced/cordon, plus Codex's `cmd`). */
const SUMMARY_KEYS = ['command', 'cmd', 'file_path', 'path', 'pattern', 'url', 'prompt', 'query'] as const;

/**
 * A call's whole command, as `ToolCall.command` gives it to taps: the first non-empty string
 * among {@link SUMMARY_KEYS} in the input (an argv array under `command` is joined with spaces),
 * else the input's sorted-key JSON (also for an input that is not an object: a string, array or
 * `null`, as Gemini CLI may send). Never cut: a policy must see all of it (padding a command past
 * a cut must not hide `git push --force` from a tap); markers store it cut ({@link storedCommand}).
 */
export function commandText(input: unknown): string {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return canonicalJson(input);
  for (const key of SUMMARY_KEYS) {
    const value = (input as Record<string, unknown>)[key];
    if (typeof value === 'string' && value !== '') return value;
    if (key === 'command' && Array.isArray(value) && value.length && value.every((v) => typeof v === 'string')) return value.join(' ');
  }
  return canonicalJson(input);
}

/**
 * A command as a marker keeps it (`command`, `rewritten_command`): its secrets as `***`
 * (output/redact.ts: markers feed `telemetry.sqlite3`, `reduce`, `analyze`, `top` and the loop
 * breaker, none of which needs a secret), cut to 2,000 characters. Taps still get the whole
 * command as sent.
 */
export function storedCommand(command: string): string {
  return redactedCut(command, MAX_COMMAND_CHARS);
}

/** Error text (a failed call's, a deny reason, which may echo the command) redacted and cut to 2,000 characters. */
export function errorText(text: string): string {
  return redactedCut(text, MAX_ERROR_CHARS);
}

/** Room past a cut that is redacted with the kept text, so a secret across the cut is recognised whole. */
const REDACT_MARGIN = 4096;

// Redacted before the cut, over at most the kept part and a margin: a token cut in half would
// no longer have its shape, and a megabyte of input need not be scanned for 2,000 characters.
// The margin is cut on a code point boundary too: redaction can shrink a long secret to `***`,
// which brings the margin's end into what is kept, and a secret may be longer than the margin;
// so a window that is not the whole text is redacted as cut (output/redact.ts `cut`): a secret
// the window's end runs through is masked to that end, however little of it is inside.
function redactedCut(text: string, max: number): string {
  const window = cutText(text, max + REDACT_MARGIN);
  return truncate(redactText(window, { cut: window.length < text.length }), max);
}

// Cut on a code point boundary: a command holding emoji never leaves a lone surrogate.
function truncate(text: string, max: number): string {
  return cutText(text, max);
}

/**
 * JSON with object keys sorted at every level and no whitespace, so equal inputs hash equally
 * regardless of key order ({@link sortedJson}: any depth, since the input is the model's).
 * Values JSON cannot hold (functions, undefined) are dropped as `JSON.stringify` drops them;
 * `null` for a value that is one of them.
 */
export function canonicalJson(value: unknown): string {
  return sortedJson(value) ?? 'null';
}
