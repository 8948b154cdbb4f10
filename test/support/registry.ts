import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runProcess, type RunResult } from './cli.js';

/** `$CORDON_VERDACCIO_DIR`, else `<repo>/.cache/verdaccio` (scripts/install-verdaccio.sh). */
export function verdaccioDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CORDON_VERDACCIO_DIR || join(REPO_ROOT, '.cache/verdaccio');
}

/** A running local npm registry (verdaccio 5) on 127.0.0.1, holding only what the test publishes. */
export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  /** A token of a user created for the test (publishing needs one). */
  readonly token: string;
  /**
   * npm settings for a child process: the `@cordon` and `@acme` scopes resolve to this registry,
   * every other package to the machine's usual registry (nothing else is published here), and the
   * token authenticates publishes.
   */
  readonly npmEnv: Readonly<Record<string, string>>;
  /** Publishes a packed tarball. */
  publish(tarball: string): Promise<RunResult>;
  /** Stops the registry and removes its storage. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * Starts verdaccio with a private storage directory, no uplinks and anonymous reads, waits for
 * its `/-/ping`, and creates a user. Throws (with the registry's log) when it does not come up
 * within 60 s or when verdaccio is not installed (`bash scripts/install-verdaccio.sh`).
 */
export async function startRegistry(): Promise<LocalRegistry> {
  const bin = join(verdaccioDir(), 'node_modules/verdaccio/bin/verdaccio');
  try {
    accessSync(bin);
  } catch {
    throw new Error(`verdaccio is not installed at ${bin}; run \`bash scripts/install-verdaccio.sh\` (npm test does it)`);
  }
  const root = mkdtempSync(join(tmpdir(), 'cordon-registry-'));
  mkdirSync(join(root, 'storage'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  writeFileSync(
    join(root, 'config.yaml'),
    [
      `storage: ${join(root, 'storage')}`,
      'auth:',
      '  htpasswd:',
      `    file: ${join(root, 'htpasswd')}`,
      '    max_users: 10',
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    unpublish: $authenticated',
      'log: { type: stdout, format: pretty, level: warn }',
      `listen: 127.0.0.1:${port}`,
      '',
    ].join('\n'),
  );
  const log: string[] = [];
  const child: ChildProcess = spawn(process.execPath, [bin, '--config', join(root, 'config.yaml')], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_NO_WARNINGS: '1' } });
  child.stdout!.on('data', (b: Buffer) => log.push(b.toString()));
  child.stderr!.on('data', (b: Buffer) => log.push(b.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(root, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(`${url}-/ping`);
      if (res.ok) break;
    } catch {
      // Not listening yet.
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`verdaccio did not start on ${url}:\n${log.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const res = await fetch(`${url}-/user/org.couchdb.user:cordon-test`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'cordon-test', password: `pw-${port}-${process.pid}` }),
  });
  const { token } = (await res.json()) as { token?: string };
  if (!token) {
    await stop();
    throw new Error(`verdaccio on ${url} created no user:\n${log.join('')}`);
  }
  const npmEnv = {
    'npm_config_@cordon:registry': url,
    'npm_config_@acme:registry': url,
    [`npm_config_//127.0.0.1:${port}/:_authToken`]: token,
  };
  return {
    url,
    token,
    npmEnv,
    publish: (tarball) => runProcess(['npm', 'publish', tarball, '--registry', url, '--no-git-checks'], { env: { ...process.env, ...npmEnv }, timeoutMs: 120_000 }),
    stop,
  };
}
