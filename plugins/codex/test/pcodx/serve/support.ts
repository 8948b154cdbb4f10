import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { codexSession, FakeModelServer, holdPerTest, type AgentSession, type Held, type RecordedRequest } from '../../../../../test/support/fake-models/index.js';
import type { TestClient } from './fake-app-server.js';
import { requireAgent } from '../../../../../test/support/agents.js';
import { CORDON_BIN, makeSandbox, type Sandbox } from '../../../../../test/support/cli.js';
import { linkCodex } from '../support.js';

/** Every text the model was sent in one request (input items' texts and tool outputs), joined. */
export function requestText(request: RecordedRequest): string {
  return JSON.stringify(request.body?.input ?? []);
}

/** The text of the last user message of a Responses request body. */
function lastUserText(body: any): string {
  const input: any[] = Array.isArray(body?.input) ? body.input : [];
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (item?.type === 'message' && item.role === 'user') return (item.content ?? []).map((c: any) => c?.text ?? '').join('');
  }
  return '';
}

/** `bytes` ASCII bytes of filler marked with the request number (`LONG_<n> …`): no JSON escaping, so a frame holding it grows by exactly that much. */
function longText(bytes: number, n: number): string {
  const unit = `LONG_${n} lorem ipsum dolor sit amet. `;
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
}

const sse = (data: { type: string }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * A fake Responses server driven by the prompt (the Responses API stream Codex reads, as the fake model servers in test/support/fake-models speak it): a last user text
 * holding `CALL_TOOL <name> <json>` makes the model call that function (once: a request whose
 * last item is the call's output gets `TOOL_RESULT_SEEN`); anything else is echoed with
 * `SENTINEL_PRESENT` or `SENTINEL_ABSENT` after it, telling whether any input text held a sentinel
 * (`SENTINEL_` then a lowercase letter or digit). A last user text holding `LONG_REPLY <bytes>` gets
 * an answer of that many bytes, its usage counting a token per 4 bytes (as a model reports a long
 * output; Codex compacts the history before its next turn once usage passes
 * `model_auto_compact_token_limit`). A last user text holding `HOLD_MODEL` is answered
 * only once {@link release} is called ({@link held} counts the requests waiting).
 */
export class PromptDrivenResponses extends FakeModelServer {
  #n = 0;
  #held: Array<() => void> = [];
  private constructor() {
    // Bodies up to 128 MiB: a resumed long history reaches the model whole (e2e-large-resume).
    super('openai-responses', (request) => this.#answer(request), { steps: [], maxRecorded: 500, maxBodyBytes: 128 * 1024 * 1024 });
  }

  static start(): Promise<PromptDrivenResponses> {
    return new PromptDrivenResponses().listen();
  }

  /** Answers every request held by `HOLD_MODEL`. */
  release(): void {
    for (const go of this.#held.splice(0)) go();
  }

  /** Number of model requests held by `HOLD_MODEL`. */
  get held(): number {
    return this.#held.length;
  }

  /** The model requests (POST …/responses) in order. */
  modelRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && /\/responses(\?|$)/.test(r.url));
  }

  async #answer(request: RecordedRequest) {
    if (request.method !== 'POST' || !/\/responses(\?|$)/.test(request.url)) return { status: 404 as const, json: { error: { message: 'no route' } } };
    if (lastUserText(request.body).includes('HOLD_MODEL')) await new Promise<void>((r) => this.#held.push(r));
    const n = ++this.#n;
    const body = request.body ?? {};
    const input: any[] = Array.isArray(body.input) ? body.input : [];
    const last = input[input.length - 1];
    const userText = lastUserText(body);
    const call = /CALL_TOOL (\S+) (\{.*\})\s*$/s.exec(userText);
    const long = /LONG_REPLY (\d+)/.exec(userText);
    // Sentinels are SENTINEL_ + lowercase letters or digits, so the verdict words never count.
    const sentinel = /SENTINEL_[a-z0-9]/.test(JSON.stringify(input));
    let item: Record<string, unknown>;
    if (call && last?.type !== 'function_call_output') {
      item = { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, name: call[1], arguments: call[2], status: 'completed' };
    } else {
      const text = long ? longText(Number(long[1]), n) : last?.type === 'function_call_output' ? `TOOL_RESULT_SEEN: ${String(last.output).slice(0, 300)}` : `ECHO ${userText.slice(0, 200)} ${sentinel ? 'SENTINEL_PRESENT' : 'SENTINEL_ABSENT'}`;
      item = { type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
    }
    const id = `resp_${n}`;
    const output = long ? Math.ceil(Number(long[1]) / 4) : 7;
    const usage = { input_tokens: 100 + n, input_tokens_details: { cached_tokens: 40 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 100 + n + output };
    return {
      status: 200 as const,
      sse: [
        sse({ type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } } as { type: string }),
        sse({ type: 'response.output_item.done', output_index: 0, item } as { type: string }),
        sse({ type: 'response.completed', response: { id, object: 'response', status: 'completed', output: [item], usage } } as { type: string }),
      ],
    };
  }
}

/** A `cordon pcodx serve` child and what it printed. */
export interface ServeProcess {
  readonly child: ChildProcess;
  /** `listen=` of the banner. */
  readonly listen: string;
  readonly banner: Record<string, string>;
  stderr(): string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** Resolves with the exit code (null when a signal ended it) once the serve has exited. */
  readonly exited: Promise<number | null>;
}

const live = new Set<ChildProcess>();

/** Stops serves a test left running (afterEach): SIGTERM so each stops its app-server, SIGKILL after 5 s. */
export async function killServes(): Promise<void> {
  const running = [...live].filter((child) => child.exitCode === null && child.signalCode === null);
  live.clear();
  await Promise.all(
    running.map(
      (child) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
          child.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** Starts `cordon pcodx serve …` (optionally `detached`: leading its own process group) and resolves once its banner (through `pcodx_tools=`/`session_id=`) is printed. */
export function startServeProcess(args: readonly string[], env: NodeJS.ProcessEnv, cwd?: string, options: { detached?: boolean } = {}): Promise<ServeProcess> {
  // detached: the serve leads a process group of its own, which a test can signal as a terminal does.
  const child = spawn(process.execPath, [CORDON_BIN, 'pcodx', 'serve', ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached });
  live.add(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  return new Promise((resolvePromise, reject) => {
    // A bound, not an expectation: a loaded machine can take tens of seconds to start Node and the app-server.
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 60_000);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before its banner: ${err}`));
    });
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (!/^pcodx_tools=/m.test(out) || (/pcodx_tools=enabled/.test(out) && !/^session_id=/m.test(out))) return;
      clearTimeout(timer);
      const banner = Object.fromEntries(out.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      resolvePromise({
        child,
        listen: banner.listen!,
        banner,
        stderr: () => err,
        exited,
        stop: async () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
  });
}

/** What a real-Codex pcodx test starts from. */
export interface CodexBox {
  readonly box: Sandbox;
  readonly server: PromptDrivenResponses;
  readonly codex: AgentSession;
  /** The installed codex executable. */
  readonly bin: string;
  /** The ledger file (not created yet). */
  readonly db: string;
  /** The codex session's environment with `PCODX_DB` set. */
  readonly env: NodeJS.ProcessEnv;
}

/** A sandbox with the codex plugin linked, a {@link PromptDrivenResponses} and a Codex home pointed at it; all released after the test. */
export async function codexBox(held: Held, prefix: string): Promise<CodexBox> {
  const box = held.sandbox(makeSandbox(prefix));
  linkCodex(box);
  const server = held.server(await PromptDrivenResponses.start());
  const codex = codexSession({ origin: server.origin, home: box.dir('agent-home'), workdir: box.dir('work'), env: box.env });
  const db = join(box.root, 'pcodx.sqlite3');
  return { box, server, codex, bin: requireAgent('codex').bin, db, env: { ...codex.env, PCODX_DB: db } };
}

/**
 * The per-test set-up of an end-to-end serve suite, called at its top level: a fake model server
 * held per test (`held`), every serve stopped after each test before that fake closes (registered
 * after holdPerTest, so it runs first), and the clients a test pushes onto `clients` closed after it.
 */
export function e2eServeSuite(): { held: ReturnType<typeof holdPerTest>; clients: TestClient[] } {
  const held = holdPerTest();
  afterEach(killServes);
  const clients: TestClient[] = [];
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  return { held, clients };
}
