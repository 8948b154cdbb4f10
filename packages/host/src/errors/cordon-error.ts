import { ERROR_CODES, type ErrorCode } from './catalogue.js';

/**
 * The machine-readable facts an error or a doctor finding carries into `--json` output. Keys are
 * snake_case like every key of cordon's JSON (docs/reference.md "JSON output"): the key type
 * admits no upper-case letter, so an object literal such as `{ apiVersion: 2 }` does not compile.
 */
export type JsonDetails = { readonly [key: Lowercase<string>]: unknown };

/**
 * Base class of every error cordon raises on purpose. `exit` is the process exit code a command
 * should end with (docs/reference.md "Exit codes"); `details` is printed under `--json`.
 */
export class CordonError extends Error {
  readonly code: ErrorCode;
  readonly exit: number;
  readonly details: JsonDetails;

  constructor(code: ErrorCode, message: string, options: { exit?: number; cause?: unknown; details?: JsonDetails } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CordonError';
    this.code = code;
    this.exit = options.exit ?? 2;
    this.details = options.details ?? {};
  }

  /** Plain object for `--json` output: `{code, message, ...details}`. */
  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, ...this.details };
  }
}

/**
 * An error thrown by a plugin, wrapped at the hook boundary (as webpack's `HookWebpackError`):
 * names the plugin and the hook, keeps the original as `cause`, and the original's own code, if
 * it had one, as `pluginCode` (`details.plugin_code` in `--json` output).
 */
export class CordonPluginError extends CordonError {
  readonly plugin: string;
  readonly hook: string;
  readonly pluginCode?: string;

  constructor(plugin: string, hook: string, cause: unknown) {
    const inner = cause instanceof Error ? cause.message : String(cause);
    const pluginCode = typeof (cause as { code?: unknown } | null)?.code === 'string' ? (cause as { code: string }).code : undefined;
    super(ERROR_CODES.PLUGIN_ERROR, `plugin "${plugin}" failed in hook "${hook}": ${inner}`, {
      cause,
      details: { plugin, hook, ...(pluginCode ? { plugin_code: pluginCode } : {}) },
    });
    this.name = 'CordonPluginError';
    this.plugin = plugin;
    this.hook = hook;
    this.pluginCode = pluginCode;
  }
}

/**
 * Wraps anything a plugin threw as a {@link CordonPluginError}; an error that is already one
 * passes through unchanged, so nested boundaries do not stack wrappers.
 */
export function wrapPluginError(plugin: string, hook: string, error: unknown): CordonPluginError {
  if (error instanceof CordonPluginError) return error;
  return new CordonPluginError(plugin, hook, error);
}
