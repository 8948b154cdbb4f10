import type { DialectContext, PayloadReaders } from '@cordon/plugin-api';

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
});

/** What `Dialect.parse` gets: the hook process's environment and the host's {@link payloadReaders}. */
export function dialectContext(env: Readonly<Record<string, string | undefined>>): DialectContext {
  return { env, read: payloadReaders };
}
