import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** One entry of `codex app-server`'s `hooks/list` answer (fields as codex-cli 0.171.0 returns them). */
export interface ListedHook {
  /** `<abs config path>:<event label>:<group index>:<handler index>`. */
  readonly key: string;
  readonly command?: string;
  readonly sourcePath?: string;
  /** `sha256:<hex>` of the hook's identity: what `[hooks.state."<key>"] trusted_hash` must hold. */
  readonly currentHash?: string;
  /** `untrusted`, `trusted`, `modified` or `managed`. */
  readonly trustStatus?: string;
}

/**
 * Asks a real Codex which hooks it sees (with `overrides`, config keys set for this run only, as
 * `codex -c key=value` takes them: the value is TOML) and how it hashes them: starts `codex app-server` on
 * stdio (JSON-RPC, one message per line), sends `initialize`, `initialized` and
 * `hooks/list {cwds}` (the Codex hooks docs), and stops the server. Rejects on a
 * JSON-RPC error, an early exit, or after `timeoutMs` (default 20 s).
 */
export function listHooks(codexBin: string, options: { env: Readonly<Record<string, string | undefined>>; cwd: string; timeoutMs?: number; overrides?: Readonly<Record<string, string>> }): Promise<ListedHook[]> {
  return new Promise((resolvePromise, reject) => {
    // `-c key=value`: Codex's own override of a config.toml key for this run (the value is TOML).
    const overrides = Object.entries(options.overrides ?? {}).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
    const child = spawn(codexBin, [...overrides, 'app-server', '--listen', 'stdio://'], { cwd: options.cwd, env: options.env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'ignore'] });
    let done = false;
    let exited = false;
    // Settles only once the server has exited: a killed server still writing into CODEX_HOME
    // (its logs, its state database) must not outlive the install that started it.
    const settle = (action: () => void): void => {
      if (exited) action();
      else child.once('close', action);
    };
    const finish = (error: Error | undefined, hooks?: ListedHook[]): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      settle(() => (error ? reject(error) : resolvePromise(hooks ?? [])));
    };
    const timer = setTimeout(() => finish(new Error(`codex app-server did not answer hooks/list within ${options.timeoutMs ?? 20_000} ms`)), options.timeoutMs ?? 20_000);
    const send = (message: unknown): void => {
      child.stdin.write(JSON.stringify(message) + '\n');
    };
    child.on('error', (error) => {
      // A binary that could not start never emits close.
      exited = true;
      finish(error);
    });
    child.on('close', () => void (exited = true));
    child.on('exit', (code) => finish(new Error(`codex app-server exited (${code}) before answering hooks/list`)));
    child.stdin.on('error', () => undefined);
    createInterface({ input: child.stdout }).on('line', (line) => {
      let message: { id?: unknown; result?: any; error?: { message?: string } };
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (message.error && (message.id === 1 || message.id === 2)) {
        finish(new Error(`codex app-server: ${message.error.message ?? 'error'}`));
        return;
      }
      if (message.id === 1) {
        send({ method: 'initialized' });
        send({ id: 2, method: 'hooks/list', params: { cwds: [options.cwd] } });
      } else if (message.id === 2) {
        const hooks: ListedHook[] = [];
        for (const group of Array.isArray(message.result?.data) ? message.result.data : []) for (const hook of Array.isArray(group?.hooks) ? group.hooks : []) hooks.push(hook);
        finish(undefined, hooks);
      }
    });
    send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'cordon_install_hooks', title: null, version: '0' } } });
  });
}
