import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cutText, cutTextEnd } from '@cordon/plugin-api';
import type { RpcId, RpcMessage } from '../serve/frames.js';
import { shownLine } from '@cordon/plugin-api';
import { cannotStartCodex } from '../errors.js';

/**
 * The answer `pcodx model-turn` gives each server request (the Rust pcodx, SichangHe/partial_compact_codex): it runs
 * unattended, so command and file approvals are declined, permission requests get an empty grant
 * for the turn, and anything else (user input, elicitation, dynamic tools it never offered) is a
 * -32601 error.
 */
export function answerServerRequest(method: string): { result: unknown } | { error: { code: number; message: string } } {
  switch (method) {
    case 'item/commandExecution/requestApproval':
    case 'item/fileChange/requestApproval':
      return { result: { decision: 'decline' } };
    case 'execCommandApproval':
    case 'applyPatchApproval':
      return { result: { decision: { denied: { rejection: 'pcodx model-turn runs unattended and declines approvals' } } } };
    case 'item/permissions/requestApproval':
      return { result: { permissions: {}, scope: 'turn' } };
    default:
      return { error: { code: -32601, message: `pcodx model-turn does not handle ${method}` } };
  }
}

/**
 * The words of a JSON-RPC error response: `<message> (code <code>)` for the protocol's
 * `{code, message}`, else `a malformed error: ` and the value as JSON, cut to 300 characters
 * (where `error: "boom"` read as `undefined (code undefined)`).
 */
export function rpcErrorText(error: unknown): string {
  const e = error as { message?: unknown; code?: unknown } | null;
  if (e !== null && typeof e === 'object' && typeof e.message === 'string') return `${e.message} (code ${String(e.code)})`;
  return `a malformed error: ${shownLine(cutText(JSON.stringify(error) ?? String(error), 300))}`;
}

/**
 * A JSON-RPC client over `codex app-server --listen stdio://` (JSON lines on stdin/stdout).
 * Notifications go to `onNotification`; server requests are answered by
 * {@link answerServerRequest}. Requests reject on an error response, on the child's exit and on
 * `close()`.
 */
export class StdioAppServer {
  readonly #child: ChildProcess;
  readonly #pending = new Map<RpcId, { resolve: (r: any) => void; reject: (e: Error) => void }>();
  #next = 0;
  #stderr = '';
  #exit: Error | undefined;

  constructor(codexBin: string, options: { cwd?: string; env?: NodeJS.ProcessEnv; onNotification: (message: RpcMessage) => void }) {
    this.#child = spawn(codexBin, ['app-server', '--listen', 'stdio://'], { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    // Decoded as a stream (a character split across two reads stays whole) and cut where a character starts.
    this.#child.stderr!.setEncoding('utf8');
    this.#child.stderr!.on('data', (text: string) => (this.#stderr = cutTextEnd(this.#stderr + text, 4096)));
    this.#child.stdin!.on('error', () => undefined);
    const fail = (error: Error) => {
      this.#exit ??= error;
      for (const waiter of this.#pending.values()) waiter.reject(this.#exit);
      this.#pending.clear();
    };
    this.#child.once('error', (error) => fail(new Error(cannotStartCodex(codexBin, error.message))));
    // Its last stderr lines, control characters (its log colours among them) escaped.
    this.#child.once('close', (code, signal) => fail(new Error(`${codexBin} app-server exited (${signal ?? code}): ${shownLine(this.#stderr.trim().split('\n').slice(-3).join(' | '))}`)));
    createInterface({ input: this.#child.stdout! }).on('line', (line) => {
      let message: RpcMessage;
      try {
        message = JSON.parse(line) as RpcMessage;
      } catch {
        return; // app-server writes only JSON lines on stdout; anything else is not ours to read
      }
      // A line of JSON that is no message (`null`, `[]`, `"x"`) is not ours either: reading its fields threw a TypeError.
      if (message === null || typeof message !== 'object' || Array.isArray(message)) return;
      if (message.method === undefined && message.id !== undefined) {
        const waiter = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.error !== undefined && message.error !== null) waiter?.reject(new Error(rpcErrorText(message.error)));
        else waiter?.resolve(message.result);
      } else if (message.method !== undefined && message.id !== undefined) {
        this.#send({ id: message.id, ...answerServerRequest(message.method) });
      } else if (message.method !== undefined) {
        options.onNotification(message);
      }
    });
  }

  request(method: string, params: unknown): Promise<any> {
    if (this.#exit) return Promise.reject(this.#exit);
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#send({ id, method, params });
    });
  }

  notify(method: string): void {
    this.#send({ method });
  }

  #send(message: unknown): void {
    if (!this.#exit) this.#child.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  /** Ends the app-server: stdin closed, SIGTERM, SIGKILL after 3 s. */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((r) => this.#child.once('close', () => r()));
    this.#child.stdin!.end();
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  }
}
