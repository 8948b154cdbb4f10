/**
 * The `error` notifications of `codex app-server` (Codex 0.171, observed: `params.error` holds
 * `message`, `additionalDetails` and `codexErrorInfo`, e.g. `{responseStreamDisconnected:
 * {httpStatusCode: 401}}`; `params.willRetry` says whether Codex tries the request again).
 */

/** HTTP statuses a retry cannot cure: the request is not authorised (no login, a wrong key). */
const HOPELESS_STATUSES = new Set([401, 403]);

/** Control characters (C0 except tab, DEL, C1) shown as `\uXXXX`: the text came from a server. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

/** `text` with its control characters escaped, so a terminal shows it as it is. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The HTTP status an app-server error names in its `codexErrorInfo`, if any. */
function httpStatus(info: unknown): number | undefined {
  if (info === null || typeof info !== 'object') return undefined;
  for (const value of Object.values(info)) {
    const status = (value as { httpStatusCode?: unknown } | null)?.httpStatusCode;
    if (typeof status === 'number') return status;
  }
  return undefined;
}

/** What one `error` notification says, and whether the turn cannot succeed after it. */
export interface AppServerError {
  /** `message`, then `additionalDetails` when there are any; control characters escaped. */
  readonly text: string;
  /** Codex will not retry (`willRetry: false`), or the status is 401/403, which a retry cannot fix. */
  readonly final: boolean;
}

/** Reads the `params` of an app-server `error` notification. */
export function readAppServerError(params: Record<string, any>): AppServerError {
  const error = params.error ?? {};
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : 'an error without a message';
  const details = typeof error.additionalDetails === 'string' && error.additionalDetails !== '' ? error.additionalDetails : undefined;
  const status = httpStatus(error.codexErrorInfo);
  const final = params.willRetry !== true || (status !== undefined && HOPELESS_STATUSES.has(status));
  return { text: escapeControls(details ? `${message} (${details})` : message), final };
}
