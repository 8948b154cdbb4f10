import { FakeModelServer, type Answer, type RecordedRequest } from './http-server.js';
import { absPath, stepAt, type ScriptOptions, type Step } from './script.js';
import type { SeenToolResult } from './anthropic.js';

/** Gemini CLI's function call for a step (the Gemini CLI hooks reference). */
function functionCall(options: ScriptOptions, s: Exclude<Step, { kind: 'text' }>): { name: string; args: Record<string, unknown> } {
  switch (s.kind) {
    case 'shell':
      return { name: 'run_shell_command', args: { command: s.command, description: s.description ?? 'scripted shell call' } };
    case 'write':
      return { name: 'write_file', args: { file_path: absPath(options, s.path), content: s.content } };
    case 'read':
      return { name: 'read_file', args: { file_path: absPath(options, s.path) } };
    case 'edit':
      return { name: 'replace', args: { file_path: absPath(options, s.path), old_string: s.oldString, new_string: s.newString, instruction: `replace ${JSON.stringify(s.oldString)} with ${JSON.stringify(s.newString)}` } };
    case 'native':
      return { name: s.name, args: { ...s.input } };
  }
}

function declared(body: any): string[] {
  const names: string[] = [];
  for (const tool of Array.isArray(body?.tools) ? body.tools : []) for (const f of Array.isArray(tool?.functionDeclarations) ? tool.functionDeclarations : []) names.push(String(f?.name));
  return names;
}

function toolResultsOf(body: any): SeenToolResult[] {
  const out: SeenToolResult[] = [];
  for (const content of Array.isArray(body?.contents) ? body.contents : []) {
    for (const part of Array.isArray(content?.parts) ? content.parts : []) {
      const r = part?.functionResponse;
      if (!r) continue;
      const response = r.response ?? {};
      out.push({ callId: String(r.id ?? r.name), isError: response.error !== undefined, text: typeof response.error === 'string' ? response.error : typeof response.output === 'string' ? response.output : JSON.stringify(response) });
    }
  }
  return out;
}

// Under `--approval-mode auto_edit` headless Gemini offers no shell tool, only the file tools.
const isTurn = (body: any): boolean => declared(body).some((name) => name === 'run_shell_command' || name === 'write_file');

/**
 * Fake Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`, `:generateContent`,
 * `:countTokens`) for `gemini -p` with `GOOGLE_GEMINI_BASE_URL=<origin>` and
 * `security.auth.selectedType = "gemini-api-key"`. Requests declaring `run_shell_command` are
 * the session's turns; JSON-mode side requests (the model router) get a routing answer, others text.
 */
export class FakeGemini extends FakeModelServer {
  private constructor(readonly options: ScriptOptions) {
    super('gemini', (request) => this.#answer(request), options);
  }

  static start(options: ScriptOptions): Promise<FakeGemini> {
    return new FakeGemini(options).listen();
  }

  /** Requests that were session turns, in order. */
  turns(): RecordedRequest[] {
    return this.requests.filter((r) => /:(stream)?[gG]enerateContent/.test(r.url) && isTurn(r.body));
  }

  /** The function responses the model saw, from the latest turn (ids are `gemini_cordon_<step>`). */
  toolResults(): SeenToolResult[] {
    const turns = this.turns();
    return turns.length ? toolResultsOf(turns[turns.length - 1]!.body) : [];
  }

  #answer(request: RecordedRequest): Answer {
    if (/:countTokens/.test(request.url)) return { status: 200, json: { totalTokens: 10 } };
    if (request.method !== 'POST' || !/:(stream)?[gG]enerateContent/.test(request.url)) {
      return { status: 404, json: { error: { code: 404, message: `fake gemini: no route ${request.method} ${request.url}`, status: 'NOT_FOUND' } } };
    }
    const body = request.body ?? {};
    const done = toolResultsOf(body).length;
    const s = isTurn(body) ? stepAt(this.options, done) : undefined;
    let parts: Array<Record<string, unknown>>;
    if (s && s.kind !== 'text') {
      const { name, args } = functionCall(this.options, s);
      parts = [{ functionCall: { id: `gemini_cordon_${done}`, name, args } }];
    } else if (s?.kind === 'text') {
      parts = [{ text: s.text }];
    } else if (body.generationConfig?.responseMimeType === 'application/json') {
      // The CLI's classifier/router and next-speaker checks ask for JSON.
      parts = [{ text: JSON.stringify({ reasoning: 'fake', model_choice: 'flash', next_speaker: 'user', complexity_reasoning: 'fake', complexity_score: 1 }) }];
    } else {
      parts = [{ text: isTurn(body) ? (this.options.finalText ?? 'Done.') : 'ok' }];
    }
    const payload = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, modelVersion: 'gemini-fake' };
    if (/:streamGenerateContent/.test(request.url)) return { status: 200, sse: [`data: ${JSON.stringify(payload)}\r\n\r\n`] };
    return { status: 200, json: payload };
  }
}
