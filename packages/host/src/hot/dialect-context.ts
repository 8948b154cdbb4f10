import type { DialectContext, PayloadReaders, ResultOutcome } from '@cordon/plugin-api';
import { readRegularFileTail } from '../io/safe-read.js';

/**
 * The host's payload readers, lent to every dialect through {@link DialectContext.read}. A field
 * of the wrong type reads as absent, so a dialect never throws on another program's payload.
 */
export const payloadReaders: PayloadReaders = Object.freeze({
  str(o: Readonly<Record<string, unknown>>, key: string): string | undefined {
    const v = o[key];
    return typeof v === 'string' ? v : undefined;
  },
  num(o: Readonly<Record<string, unknown>>, key: string): number | undefined {
    const v = o[key];
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  },
  obj(o: Readonly<Record<string, unknown>>, key: string): Record<string, unknown> | undefined {
    const v = o[key];
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  },
  fileTail(path: string, maxBytes: number): string | undefined {
    if (typeof path !== 'string' || path === '' || path.includes('\0')) return undefined;
    try {
      // Links are followed (an agent's home may be a link); the type and size checks still hold.
      return readRegularFileTail(path, { maxBytes: Math.max(0, Math.floor(maxBytes)), links: 'always' }).toString('utf8');
    } catch {
      return undefined;
    }
  },
  resultOutcome,
});

/** {@link PayloadReaders.resultOutcome}. */
function resultOutcome(result: unknown): ResultOutcome | undefined {
  let value = result;
  if (typeof value === 'string') {
    const text = value.trimStart();
    if (!text.startsWith('{')) return undefined;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  const error = errorText(o.error);
  if (o.isError === true || o.is_error === true || o.success === false || error !== undefined) {
    const text = error ?? contentText(o.content);
    return { status: 'failed', ...(text !== undefined ? { error: text } : {}) };
  }
  if (o.isError === false || o.is_error === false || o.success === true) return { status: 'ok' };
  return undefined;
}

/** Text of an `error` field: a non-empty string, or an object's `message`, else its JSON. */
function errorText(error: unknown): string | undefined {
  if (typeof error === 'string') return error.trim() !== '' ? error : undefined;
  if (!error || typeof error !== 'object') return undefined;
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && message !== '') return message;
  try {
    return JSON.stringify(error);
  } catch {
    return undefined;
  }
}

/** The `text` of an MCP result's content blocks, joined by newlines; `undefined` when there is none. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content !== '' ? content : undefined;
  if (!Array.isArray(content)) return undefined;
  const texts = content.map((block) => (block && typeof block === 'object' && typeof (block as { text?: unknown }).text === 'string' ? (block as { text: string }).text : '')).filter((t) => t !== '');
  return texts.length ? texts.join('\n') : undefined;
}

/** What `Dialect.parse` gets: the hook process's environment and the host's {@link payloadReaders}. */
export function dialectContext(env: Readonly<Record<string, string | undefined>>): DialectContext {
  return { env, read: payloadReaders };
}
