import type { AgentOutput, AgentReport } from '@cordon/plugin-api';

/**
 * Reads the object `gemini -p --output-format json` prints (Gemini CLI 0.61.0):
 * `{session_id, response, stats: {models: {<model>: {api: {totalRequests}, tokens: {input,
 * candidates}, roles: {main: {totalRequests}}}}, tools: {totalCalls}}}` on stdout, or, when the
 * run fails, `{session_id, error: {type, message, code}}` at the end of stderr (after the stack
 * trace) with a non-zero exit.
 *
 * The attempt failed, by Gemini's own account, when the object carries `error` or none was found.
 * Turns are the main model's requests (the router's are not turns); Gemini reports no cost.
 */
export function parseGeminiResult(output: AgentOutput): AgentReport {
  const result = lastObject(output.stdout) ?? lastObject(output.stderr);
  if (!result) return { ok: false, unreported: true, error: 'printed no JSON result' };
  const sessionId = typeof result.session_id === 'string' && result.session_id !== '' ? result.session_id : undefined;
  const error = result.error;
  if (error !== undefined && error !== null) {
    return { ok: false, error: readable(error), status: 'error', ...(sessionId ? { sessionId } : {}) };
  }
  let turns = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  const models = result.stats?.models ?? {};
  for (const model of Object.values<any>(typeof models === 'object' && models !== null ? models : {})) {
    turns += count(model?.roles?.main?.totalRequests ?? model?.api?.totalRequests);
    inputTokens += count(model?.tokens?.input);
    outputTokens += count(model?.tokens?.candidates);
  }
  return {
    ok: true,
    status: 'ok',
    ...(sessionId ? { sessionId } : {}),
    turns,
    inputTokens,
    outputTokens,
    ...(typeof result.stats?.tools?.totalCalls === 'number' ? { toolCalls: result.stats.tools.totalCalls } : {}),
    ...(typeof result.response === 'string' ? { message: result.response } : {}),
  };
}

/** The last top-level JSON object in `text`: tried from each line that starts with `{`, last first. */
function lastObject(text: string): Record<string, any> | undefined {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]!.startsWith('{')) continue;
    try {
      const value = JSON.parse(lines.slice(i).join('\n'));
      if (typeof value === 'object' && value !== null && !Array.isArray(value) && ('session_id' in value || 'response' in value || 'error' in value)) return value;
    } catch {
      // Not the start of the object; keep looking upward.
    }
  }
  return undefined;
}

/** Gemini's error `message` may be the provider's JSON body; show its own message and code. */
function readable(error: any): string {
  let text = typeof error?.message === 'string' ? error.message : JSON.stringify(error);
  try {
    const inner = JSON.parse(text)?.error?.message;
    if (typeof inner === 'string' && inner !== '') text = inner;
  } catch {
    // Already text.
  }
  return typeof error?.code === 'number' && !text.includes(String(error.code)) ? `${text} (code ${error.code})` : text;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
