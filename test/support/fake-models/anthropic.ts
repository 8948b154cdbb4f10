import { FakeModelServer, type Answer, type RecordedRequest } from './http-server.js';
import { absPath, stepAt, type ScriptOptions, type Step } from './script.js';

/** A tool result as the model received it (what the agent told the model about one call). */
export interface SeenToolResult {
  /** The call id the fake issued (`toolu_cordon_<step>` here). */
  readonly callId: string;
  /** True when the agent flagged the result as an error (failed or blocked calls). */
  readonly isError: boolean;
  /** The result text (text blocks joined). */
  readonly text: string;
}

/** Claude Code's tool call for a step (the Claude Code hooks reference). */
function toolUse(options: ScriptOptions, s: Exclude<Step, { kind: 'text' }>): { name: string; input: Record<string, unknown> } {
  switch (s.kind) {
    case 'shell':
      return { name: 'Bash', input: { command: s.command, description: s.description ?? 'scripted shell call' } };
    case 'write':
      return { name: 'Write', input: { file_path: absPath(options, s.path), content: s.content } };
    case 'read':
      return { name: 'Read', input: { file_path: absPath(options, s.path) } };
    case 'edit':
      return { name: 'Edit', input: { file_path: absPath(options, s.path), old_string: s.oldString, new_string: s.newString, replace_all: false } };
    case 'native':
      return { name: s.name, input: { ...s.input } };
  }
}

function toolResultsOf(body: any): SeenToolResult[] {
  const out: SeenToolResult[] = [];
  for (const message of Array.isArray(body?.messages) ? body.messages : []) {
    if (!Array.isArray(message?.content)) continue;
    for (const block of message.content) {
      if (block?.type !== 'tool_result') continue;
      const text = typeof block.content === 'string' ? block.content : Array.isArray(block.content) ? block.content.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join('') : '';
      out.push({ callId: String(block.tool_use_id), isError: block.is_error === true, text });
    }
  }
  return out;
}

/** {@link ScriptOptions} plus an API error in place of a step. */
export interface AnthropicScriptOptions extends ScriptOptions {
  /**
   * Answer the session turn that would play step `step` (and every later one) with this HTTP
   * error instead. Use a status Claude Code does not retry (400, 401, 403): it then ends the run
   * with `is_error: true`, `terminal_reason: "api_error"` and `api_error_status` (exit 1 in 2.1.332).
   */
  readonly apiError?: { readonly step: number; readonly status: number; readonly type: string; readonly message: string };
}

const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Fake Anthropic Messages API (`POST /v1/messages`, streaming SSE and plain JSON;
 * `POST /v1/messages/count_tokens`) for `claude -p` with `ANTHROPIC_BASE_URL=<origin>`.
 * Requests that offer the `Bash` tool are the session's turns and play the script; any other
 * request (titles, command-prefix checks) gets a short text answer and does not advance it.
 */
export class FakeAnthropic extends FakeModelServer {
  #messages = 0;

  private constructor(readonly options: AnthropicScriptOptions) {
    super('anthropic', (request) => this.#answer(request), options);
  }

  /** Starts a server playing `options.steps`. */
  static start(options: AnthropicScriptOptions): Promise<FakeAnthropic> {
    return new FakeAnthropic(options).listen();
  }

  /** Requests that were session turns (offered the Bash tool), in order. */
  turns(): RecordedRequest[] {
    return this.requests.filter((r) => r.url.startsWith('/v1/messages') && !r.url.startsWith('/v1/messages/count_tokens') && offersBash(r.body));
  }

  /** The tool results the model saw, from the latest turn (each turn carries all earlier ones). */
  toolResults(): SeenToolResult[] {
    const turns = this.turns();
    return turns.length ? toolResultsOf(turns[turns.length - 1]!.body) : [];
  }

  #answer(request: RecordedRequest): Answer {
    if (request.method !== 'POST' || !request.url.startsWith('/v1/messages')) {
      return { status: 404, json: { type: 'error', error: { type: 'not_found_error', message: `fake anthropic: no route ${request.method} ${request.url}` } } };
    }
    if (request.url.startsWith('/v1/messages/count_tokens')) return { status: 200, json: { input_tokens: 10 } };
    const body = request.body ?? {};
    const model = typeof body.model === 'string' ? body.model : 'claude-fake';
    const done = toolResultsOf(body).length;
    const failure = this.options.apiError;
    if (failure && offersBash(body) && done >= failure.step) return { status: failure.status, json: { type: 'error', error: { type: failure.type, message: failure.message } } };
    const s = offersBash(body) ? stepAt(this.options, done) : undefined;
    let content: Array<Record<string, unknown>>;
    let stop: string;
    if (s && s.kind !== 'text') {
      const { name, input } = toolUse(this.options, s);
      content = [{ type: 'tool_use', id: `toolu_cordon_${done}`, name, input }];
      stop = 'tool_use';
    } else {
      const text = s?.kind === 'text' ? s.text : offersBash(body) ? (this.options.finalText ?? 'Done.') : 'ok';
      content = [{ type: 'text', text }];
      stop = 'end_turn';
    }
    const id = `msg_cordon_${++this.#messages}`;
    const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (body.stream !== true) {
      return { status: 200, json: { id, type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage } };
    }
    const frames = [frame('message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } })];
    content.forEach((block, index) => {
      if (block.type === 'tool_use') {
        frames.push(frame('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }));
        // The input arrives as partial JSON deltas, as the real API streams it.
        const json = JSON.stringify(block.input);
        const half = Math.floor(json.length / 2);
        for (const part of [json.slice(0, half), json.slice(half)]) {
          frames.push(frame('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } }));
        }
      } else {
        frames.push(frame('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
        frames.push(frame('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } }));
      }
      frames.push(frame('content_block_stop', { type: 'content_block_stop', index }));
    });
    frames.push(frame('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }));
    frames.push(frame('message_stop', { type: 'message_stop' }));
    return { status: 200, sse: frames, headers: { 'request-id': `req_cordon_${this.#messages}` } };
  }
}

function offersBash(body: any): boolean {
  return Array.isArray(body?.tools) && body.tools.some((t: any) => t?.name === 'Bash');
}
