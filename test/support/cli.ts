import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopProcessesOf, stopSamplersUnder } from './samplers.js';

/** Absolute root of the monorepo checkout. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** The built `cordon` bin (tests run after `npm run build`). */
export const CORDON_BIN = join(REPO_ROOT, 'packages/host/bin/run.cjs');

/** Result of one child process. */
export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options for {@link runCordon} and {@link runProcess}. */
export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Text or bytes for stdin; stdin is closed right after. */
  input?: string | Buffer;
  /** Kill with SIGKILL after this many ms (default 120,000). */
  timeoutMs?: number;
}

/**
 * The bound (`timeoutMs`) for one run that must not wait for ever (on a FIFO, on a closed reader):
 * such a wait never ends, so the bound only has to be far above what a loaded 2-core machine takes
 * to start Node and do the work; a tighter one fails a slow run that was right.
 */
export const HANG_BOUND_MS = 60_000;

/** Runs any command without a shell and collects its output. */
export function runProcess(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      resolvePromise({ exitCode, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Runs the built `cordon` bin with `args`. */
export function runCordon(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return runProcess([process.execPath, CORDON_BIN, ...args], options);
}

/** Per-test isolated directories and environment (`CORDON_DATA_DIR` and friends, `HOME`, XDG). */
export interface Sandbox {
  /** Root temp dir; removed by {@link Sandbox.cleanup}. */
  readonly root: string;
  readonly dataDir: string;
  readonly configDir: string;
  readonly cacheDir: string;
  readonly home: string;
  /** `process.env` with the isolated directories set. */
  readonly env: NodeJS.ProcessEnv;
  /** Makes a fresh subdirectory of {@link root}. */
  dir(name: string): string;
  cleanup(): void;
}

/** Creates a {@link Sandbox}. */
export function makeSandbox(prefix = 'cordon-test-'): Sandbox {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const sub = (name: string) => {
    const p = join(root, name);
    mkdirSync(p, { recursive: true });
    return p;
  };
  const dataDir = sub('data');
  const configDir = sub('config');
  const cacheDir = sub('cache');
  const home = sub('home');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CORDON_DATA_DIR: dataDir,
    CORDON_CONFIG_DIR: configDir,
    CORDON_CACHE_DIR: cacheDir,
    // Sockets and pid records of `pcodx serve` (created on use, owner-only).
    CORDON_RUNTIME_DIR: join(root, 'run'),
    HOME: home,
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Cordon Test',
    GIT_AUTHOR_EMAIL: 'test@cordon.invalid',
    GIT_COMMITTER_NAME: 'Cordon Test',
    GIT_COMMITTER_EMAIL: 'test@cordon.invalid',
  };
  // vitest sets NODE_ENV=test, which would put oclif in dev mode (TypeScript sources); the
  // children run the built CLI as users do.
  for (const key of ['CORDON_DISABLE', 'NODE_ENV', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID']) delete env[key];
  // oclif's colour library (ansis) colours a pipe when one of these is set (`CI=true` in `.ci/run`,
  // COLORTERM in most terminals); the children see a plain pipe, as a user's redirect would.
  for (const key of ['CI', 'COLORTERM', 'FORCE_COLOR', 'TF_BUILD', 'TEAMCITY_VERSION', 'GITHUB_ACTIONS', 'GITEA_ACTIONS']) delete env[key];
  // The agents' own home variables would lead install-hooks past the sandbox's HOME into the
  // real agent configs of whoever runs the tests.
  for (const key of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'HERMES_HOME']) delete env[key];
  // Retries: an agent's last writes (e.g. Codex into ~/.codex) may land while the tree is removed.
  const cleanup = () => {
    stopSamplersUnder(root);
    stopProcessesOf(dataDir);
    rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  return { root, dataDir, configDir, cacheDir, home, env, dir: sub, cleanup };
}

/**
 * Links workspace plugins into a data dir the way `cordon plugins link <dir> --no-install`
 * records them (`<dataDir>/package.json`, `type: "link"`), without running oclif per plugin.
 * One test proves the real `plugins link` command writes the same thing.
 */
export function linkPlugins(dataDir: string, names: readonly string[]): void {
  const plugins = names.map((name) => ({ name: `@cordon/${name}`, root: join(REPO_ROOT, 'plugins', name), type: 'link' }));
  writeFileSync(join(dataDir, 'package.json'), JSON.stringify({ name: '@cordon/host', private: true, dependencies: {}, oclif: { schema: 1, plugins } }, null, 2));
}

/** Links an arbitrary plugin directory (e.g. a test fixture) alongside workspace plugins. */
export function linkPluginRoots(dataDir: string, roots: ReadonlyArray<{ name: string; root: string }>): void {
  const plugins = roots.map(({ name, root }) => ({ name, root, type: 'link' }));
  writeFileSync(join(dataDir, 'package.json'), JSON.stringify({ name: '@cordon/host', private: true, dependencies: {}, oclif: { schema: 1, plugins } }, null, 2));
}

/** What {@link cordonIntoClosedPipe} saw: the exit code, the bytes the reader kept, stderr. */
export interface ClosedPipeResult {
  readonly code: number | null;
  readonly head: string;
  readonly stderr: string;
}

/**
 * Runs the built `cordon ARGS` with a stdout whose reader keeps at most `keep` bytes and then
 * closes its end (`| head -c KEEP`; 0 closes it at once), for the EPIPE behaviour of commands.
 */
export function cordonIntoClosedPipe(args: readonly string[], options: { readonly cwd?: string; readonly env?: NodeJS.ProcessEnv }, keep: number): Promise<ClosedPipeResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CORDON_BIN, ...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let head = Buffer.alloc(0);
    let stderr = '';
    if (keep === 0) child.stdout.destroy();
    else
      child.stdout.on('data', (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]).subarray(0, keep);
        if (head.length >= keep) child.stdout.destroy();
      });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, head: head.toString(), stderr }));
  });
}
