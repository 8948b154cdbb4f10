import type { AgentOutput, AgentReport } from '@cordon/plugin-api';

/**
 * Reads the result object `claude -p --output-format json` prints as its last stdout line
 * (Claude Code 2.1.332): `{type: "result", subtype, is_error, result, errors?, session_id,
 * num_turns, total_cost_usd, duration_ms, usage, permission_denials, terminal_reason,
 * api_error_status?}`.
 *
 * The attempt failed, by the agent's own account, when `is_error` is true or `subtype` names an
 * error (`error_max_turns`, `error_max_budget_usd`, `error_during_execution`): docs/envelopes.md
 * item 9; an API error comes as `is_error: true` with subtype `success` and the message in
 * `result`, which some versions exit 0 with (anthropics/claude-code#79500). Stdout without a
 * result object is `ok: false` ("printed no result object").
 */
export function parseClaudeResult(output: AgentOutput): AgentReport {
  const result = findResult(output.stdout);
  if (!result) return { ok: false, unreported: true, error: 'printed no result object on stdout' };
  const subtype = typeof result.subtype === 'string' ? result.subtype : undefined;
  const failed = result.is_error === true || (subtype !== undefined && subtype.startsWith('error'));
  const status = result.is_error === true && (subtype === undefined || subtype === 'success') ? (str(result.terminal_reason) ?? 'error') : subtype;
  const usage = isObject(result.usage) ? result.usage : {};
  const input = sum([usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens]);
  const text = str(result.result);
  const errors = Array.isArray(result.errors) ? result.errors.filter((e): e is string => typeof e === 'string') : [];
  return {
    ok: !failed,
    ...(failed ? { error: errorText(errors, text, result.api_error_status) } : {}),
    ...(status !== undefined ? { status } : {}),
    ...optional('sessionId', str(result.session_id)),
    ...optional('turns', num(result.num_turns)),
    ...optional('costUsd', num(result.total_cost_usd)),
    ...optional('durationMs', num(result.duration_ms)),
    ...optional('inputTokens', input),
    ...optional('outputTokens', num(usage.output_tokens)),
    ...optional('permissionDenials', Array.isArray(result.permission_denials) ? result.permission_denials.length : undefined),
    ...optional('message', text),
  };
}

function errorText(errors: string[], text: string | undefined, apiStatus: unknown): string {
  const parts = errors.length ? errors : text ? [text] : ['is_error is true'];
  const joined = parts.join('; ');
  return typeof apiStatus === 'number' && !joined.includes(String(apiStatus)) ? `${joined} (HTTP ${apiStatus})` : joined;
}

/** The last stdout line that parses as an object with `type: "result"` (the whole stdout first). */
function findResult(stdout: string): Record<string, unknown> | undefined {
  const whole = tryParse(stdout.trim());
  if (whole?.type === 'result') return whole;
  const lines = stdout.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{')) continue;
    const parsed = tryParse(line);
    if (parsed?.type === 'result') return parsed;
  }
  return undefined;
}

function tryParse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function sum(values: unknown[]): number | undefined {
  const nums = values.map(num).filter((v): v is number => v !== undefined);
  return nums.length ? nums.reduce((a, b) => a + b, 0) : undefined;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
