import { appendLine } from '../io/append.js';
import { rotateWhenFull } from '../io/rotate.js';
import { isoTimestamp } from './clock.js';
import { ensurePrivateDir } from '../io/private-dir.js';
import { join } from 'node:path';
import { cutText, type Logger } from '@cordon/plugin-api';
import { redactArgv, redactText } from '../output/redact.js';
import { withoutJsonExcerpts } from './json-excerpt.js';

type Level = 'debug' | 'info' | 'warn' | 'error';

/**
 * Longest message or string field a log line keeps, in characters; a longer one is cut and says
 * how long it was. Log fields often carry what a payload sent (an unknown `hook_event_name`, a
 * plugin's error that echoes a command): without a bound each hook call could add megabytes.
 */
export const MAX_LOG_TEXT_CHARS = 4000;

/**
 * Size in bytes at which `cordon.log` is moved to `cordon.log.1` (replacing the one before) and a
 * new one begun, so the log keeps at most about twice this: with `control guard` on, every shell
 * call of an unguarded machine logs a line, thousands a day.
 */
export const LOG_ROTATE_BYTES = 8 * 2 ** 20;

/** Room past the cut that is redacted with the kept text, so a secret across the cut is masked whole (as markers do). */
const REDACT_MARGIN = 4096;
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * A file logger: one JSON line per entry in `<dataDir>/logs/cordon.log` (owner-only: 0700 dir,
 * 0600 file, whole-line appends). It never writes to
 * stdout or stderr, because the hook path must print nothing an agent did not ask for.
 * Level: `CORDON_LOG_LEVEL` (`debug`|`info`|`warn`|`error`), else `debug` when `CORDON_DEBUG` is
 * set, else `warn`. Write failures are swallowed: logging never breaks a command.
 * Secrets are never logged: the message and every string field (in arrays and plain objects too)
 * go through `redactText`, a field named `argv` through `redactArgv` (src/output/redact.ts), so
 * a command a user or an agent typed (`control run`'s argv, a plugin's error that echoes one)
 * keeps `***` for its secrets, whichever plugin logs it. A `JSON.parse` error's excerpt of the
 * text it failed on is left out first (util/json-excerpt.ts): it may be the start of a secret,
 * too short for redaction to recognise. Each string is kept to {@link MAX_LOG_TEXT_CHARS}
 * characters (`logText`).
 */
export function createFileLogger(dataDir: string, scope: string, env: NodeJS.ProcessEnv = process.env): Logger {
  const wanted = (env.CORDON_LOG_LEVEL as Level | undefined) ?? (env.CORDON_DEBUG ? 'debug' : 'warn');
  const threshold = ORDER[wanted] ?? ORDER.warn;
  const file = join(dataDir, 'logs', 'cordon.log');
  let ready = false;
  const write = (level: Level, message: string, fields?: Record<string, unknown>): void => {
    if (ORDER[level] < threshold) return;
    try {
      if (!ready) {
        ensurePrivateDir(join(dataDir, 'logs'));
        ready = true;
      }
      rotateWhenFull(file, LOG_ROTATE_BYTES);
      appendLine(file, JSON.stringify({ t: isoTimestamp(), level, scope, pid: process.pid, message: logText(message), ...(fields ? redactFields(fields) : undefined) }) + '\n');
    } catch {
      // Logging is best effort.
    }
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

/** `fields` with their strings redacted (`argv`: as an argv, keeping its elements); other values as they are. */
function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    out[key] = key === 'argv' && Array.isArray(value) && value.every((v) => typeof v === 'string') ? redactArgv(value as string[]) : redactValue(value, 0);
  }
  return out;
}

/** `value` with every string in it redacted, through arrays and plain objects down to depth 4. */
function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return logText(value);
  if (value === null || typeof value !== 'object' || depth > 4) return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  // Plain objects only: an Error or a class instance is logged as JSON.stringify shows it.
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = redactValue((value as Record<string, unknown>)[key], depth + 1);
  return out;
}

/**
 * A message or string field as the log keeps it: its JSON excerpts left out, redacted, and cut to
 * {@link MAX_LOG_TEXT_CHARS} characters on a code point boundary with `… (<n> characters)` after
 * it. Only the kept part and a margin are redacted, as a cut (`redactText` `cut`), so a megabyte
 * field costs no megabyte scan and a secret the cut runs through is masked to its end.
 */
function logText(text: string): string {
  const window = cutText(text, MAX_LOG_TEXT_CHARS + REDACT_MARGIN);
  const cut = window.length < text.length;
  const redacted = redactText(withoutJsonExcerpts(window), { cut });
  if (!cut && redacted.length <= MAX_LOG_TEXT_CHARS) return redacted;
  const note = `… (${text.length} characters)`;
  return cutText(redacted, MAX_LOG_TEXT_CHARS - note.length) + note;
}

