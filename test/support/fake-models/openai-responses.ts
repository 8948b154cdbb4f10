import { FakeModelServer, type Answer, type RecordedRequest } from './http-server.js';
import { absPath, stepAt, type ScriptOptions, type Step } from './script.js';
import type { SeenToolResult } from './anthropic.js';

/** A tool the client offered, as listed in the request's `tools`. */
interface OfferedTool {
  readonly name: string;
  /** `function` (JSON arguments) or `custom` (free-form `input`, e.g. Codex's `apply_patch`). */
  readonly type: string;
}

function offered(body: any): OfferedTool[] {
  return (Array.isArray(body?.tools) ? body.tools : []).map((t: any) => ({ name: String(t?.name ?? t?.function?.name ?? t?.type ?? ''), type: String(t?.type ?? 'function') }));
}

/** Single-quotes a string for a POSIX shell. */
function shq(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** One output item to emit for a step. */
type Call = { readonly custom: boolean; readonly name: string; readonly payload: string };

const SHELL_TOOLS = ['exec_command', 'shell_command', 'shell'] as const;

/** The shell call in whichever shell tool Codex offered (names differ by model family). */
function shellCall(tools: OfferedTool[], options: ScriptOptions, command: string): Call {
  const cwd = options.workdir ?? process.cwd();
  const name = SHELL_TOOLS.find((n) => tools.some((t) => t.name === n));
  if (name === 'exec_command') return { custom: false, name, payload: JSON.stringify({ cmd: command, workdir: cwd, yield_time_ms: 10_000 }) };
  if (name === 'shell_command') return { custom: false, name, payload: JSON.stringify({ command, workdir: cwd }) };
  if (name === 'shell') return { custom: false, name, payload: JSON.stringify({ command: ['bash', '-lc', command], workdir: cwd }) };
  throw new Error(`codex offered no shell tool (offered: ${tools.map((t) => t.name).join(', ')})`);
}

function patchCall(tools: OfferedTool[], patch: string): Call {
  const tool = tools.find((t) => t.name === 'apply_patch');
  if (!tool) throw new Error(`codex offered no apply_patch tool (offered: ${tools.map((t) => t.name).join(', ')}); use a model slug Codex knows, e.g. gpt-5.5`);
  return tool.type === 'custom' ? { custom: true, name: 'apply_patch', payload: patch } : { custom: false, name: 'apply_patch', payload: JSON.stringify({ input: patch }) };
}

const lines = (text: string): string[] => text.replace(/\n$/, '').split('\n');

/** Codex's call for a step (the Codex hooks docs; apply_patch grammar of codex-rs). */
function callFor(tools: OfferedTool[], options: ScriptOptions, s: Exclude<Step, { kind: 'text' }>): Call {
  switch (s.kind) {
    case 'shell':
      return shellCall(tools, options, s.command);
    case 'read':
      return shellCall(tools, options, `cat ${shq(absPath(options, s.path))}`);
    case 'write':
      return patchCall(tools, ['*** Begin Patch', `*** Add File: ${absPath(options, s.path)}`, ...lines(s.content).map((l) => `+${l}`), '*** End Patch', ''].join('\n'));
    case 'edit':
      return patchCall(tools, ['*** Begin Patch', `*** Update File: ${absPath(options, s.path)}`, '@@', ...lines(s.oldString).map((l) => `-${l}`), ...lines(s.newString).map((l) => `+${l}`), '*** End Patch', ''].join('\n'));
    case 'native': {
      const custom = tools.some((t) => t.name === s.name && t.type === 'custom');
      return custom ? { custom: true, name: s.name, payload: String(s.input.input ?? '') } : { custom: false, name: s.name, payload: JSON.stringify(s.input) };
    }
  }
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join('');
  return JSON.stringify(output ?? '');
}

function toolResultsOf(body: any): SeenToolResult[] {
  return (Array.isArray(body?.input) ? body.input : [])
    .filter((i: any) => i?.type === 'function_call_output' || i?.type === 'custom_tool_call_output')
    .map((i: any) => ({ callId: String(i.call_id), isError: false, text: outputText(i.output) }));
}

const frame = (data: { type: string }): string => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Fake OpenAI Responses API (`POST /v1/responses`, SSE) for `codex exec` with a model provider
 * whose `base_url` is `<origin>/v1` and `wire_api = "responses"`. Requests that offer a shell
 * tool are the session's turns and play the script; others (titles) get text.
 * Responses API results carry no error flag, so `isError` is always false here.
 */
export class FakeOpenAIResponses extends FakeModelServer {
  #responses = 0;

  private constructor(readonly options: ScriptOptions) {
    super('openai-responses', (request) => this.#answer(request), options);
  }

  static start(options: ScriptOptions): Promise<FakeOpenAIResponses> {
    return new FakeOpenAIResponses(options).listen();
  }

  /** Requests that were session turns, in order. */
  turns(): RecordedRequest[] {
    return this.requests.filter((r) => /\/responses(\?|$)/.test(r.url) && isTurn(r.body));
  }

  /** The tool outputs the model saw, from the latest turn. */
  toolResults(): SeenToolResult[] {
    const turns = this.turns();
    return turns.length ? toolResultsOf(turns[turns.length - 1]!.body) : [];
  }

  #answer(request: RecordedRequest): Answer {
    if (request.method === 'GET' && /\/models(\?|$)/.test(request.url)) return { status: 200, json: { object: 'list', data: [], models: [] } };
    if (request.method !== 'POST' || !/\/responses(\?|$)/.test(request.url)) {
      return { status: 404, json: { error: { message: `fake openai: no route ${request.method} ${request.url}` } } };
    }
    const body = request.body ?? {};
    const n = ++this.#responses;
    const done = toolResultsOf(body).length;
    const s = isTurn(body) ? stepAt(this.options, done) : undefined;
    let item: Record<string, unknown>;
    if (s && s.kind !== 'text') {
      const call = callFor(offered(body), this.options, s);
      const callId = `call_cordon_${done}`;
      item = call.custom
        ? { type: 'custom_tool_call', id: `ctc_cordon_${n}`, call_id: callId, name: call.name, input: call.payload, status: 'completed' }
        : { type: 'function_call', id: `fc_cordon_${n}`, call_id: callId, name: call.name, arguments: call.payload, status: 'completed' };
    } else {
      const text = s?.kind === 'text' ? s.text : isTurn(body) ? (this.options.finalText ?? 'Done.') : 'ok';
      item = { type: 'message', id: `msg_cordon_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
    }
    const id = `resp_cordon_${n}`;
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
    return {
      status: 200,
      sse: [
        frame({ type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } } as { type: string }),
        frame({ type: 'response.output_item.added', output_index: 0, item } as { type: string }),
        frame({ type: 'response.output_item.done', output_index: 0, item } as { type: string }),
        frame({ type: 'response.completed', response: { id, object: 'response', status: 'completed', output: [item], usage } } as { type: string }),
      ],
    };
  }
}

function isTurn(body: any): boolean {
  return offered(body).some((t) => (SHELL_TOOLS as readonly string[]).includes(t.name));
}
