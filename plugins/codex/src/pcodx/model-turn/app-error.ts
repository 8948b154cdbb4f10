import { shownLine } from '@cordon/plugin-api';

/**
 * The `error` notifications of `codex app-server` (Codex 0.171, observed: `params.error` holds
 * `message`, `additionalDetails` and `codexErrorInfo`, e.g. `{responseStreamDisconnected:
 * {httpStatusCode: 401}}`; `params.willRetry` says whether Codex tries the request again).
 */

/** HTTP statuses a retry cannot cure: the request is not authorised (no login, a wrong key). */
const HOPELESS_STATUSES = new Set([401, 403]);

/**
 * The HTTP status an app-server error names in its `codexErrorInfo`: a number, `null` when the
 * request got no HTTP answer at all (observed: `{responseStreamDisconnected: {httpStatusCode:
 * null}}` with "Reconnecting... waiting for network" when nothing listens or there is no
 * network), undefined when the error names none.
 */
function httpStatus(info: unknown): number | null | undefined {
  if (info === null || typeof info !== 'object') return undefined;
  for (const value of Object.values(info)) {
    if (value === null || typeof value !== 'object' || !('httpStatusCode' in value)) continue;
    const status = (value as { httpStatusCode?: unknown }).httpStatusCode;
    if (typeof status === 'number' || status === null) return status;
  }
  return undefined;
}

/** What one `error` notification says, and whether the turn cannot succeed after it. */
export interface AppServerError {
  /** `message`, then `additionalDetails` when there are any; control characters escaped. */
  readonly text: string;
  /**
   * Codex will not retry (`willRetry: false`), the status is 401/403 (which a retry cannot fix),
   * or the request got no HTTP answer (no network, nothing listening), which Codex would wait out
   * without end.
   */
  readonly final: boolean;
}

/** Reads the `params` of an app-server `error` notification. */
export function readAppServerError(params: Record<string, any>): AppServerError {
  const error = params.error ?? {};
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : 'an error without a message';
  const details = typeof error.additionalDetails === 'string' && error.additionalDetails !== '' ? error.additionalDetails : undefined;
  const status = httpStatus(error.codexErrorInfo);
  // No retry coming, a refusal no retry cures, or no answer at all: Codex then waits for the
  // network without end (Codex 0.171 retried at 5, 15, 35 s… with its retry limits at 0).
  const final = params.willRetry !== true || status === null || (status !== undefined && HOPELESS_STATUSES.has(status));
  return { text: shownLine(details ? `${message} (${details})` : message), final };
}
