import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CordonPlugin } from '@cordon/plugin-api';
import { CORDON_BIN, type RunResult } from '../../../../test/support/cli.js';
import { HOOK_PAYLOADS } from '../../../../test/support/fixtures.js';
import { CordonHost } from '../../src/bus/host.js';
import { register as claudeCode } from '../../../../plugins/claude-code/src/index.js';
import { register as codex } from '../../../../plugins/codex/src/index.js';
import { register as cursor } from '../../../../plugins/cursor/src/index.js';
import { register as gemini } from '../../../../plugins/gemini/src/index.js';
import { register as hermes } from '../../../../plugins/hermes/src/index.js';

/** The repository root. */
export const REPO = resolve(fileURLToPath(new URL('../../../../', import.meta.url)));

/** The payloads captured from the real agents (test/fixtures/hook-payloads). */
export const FIXTURES = HOOK_PAYLOADS;

/** Every fixture payload: `{file, agent, event, payload}`; throws if the directory is missing. */
export function fixtures(): Array<{ file: string; agent: 'claude-code' | 'codex' | 'gemini'; event: string; variant: string; payload: Record<string, unknown> }> {
  if (!existsSync(FIXTURES)) throw new Error(`hook payload fixtures not found at ${FIXTURES}`);
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json') && !f.startsWith('_'))
    .sort()
    .map((file) => {
      const [agentName, event, ...rest] = file.replace(/\.json$/, '').split('.');
      const agent = agentName === 'gemini-cli' ? 'gemini' : (agentName as 'claude-code' | 'codex');
      return { file, agent, event: event!, variant: rest.join('.'), payload: JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) };
    });
}

/** A temp data dir, removed by `cleanup`. */
export function tempDir(prefix = 'cordon-hot-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A host with the five agent plugins (from source) applied, plus `extra` descriptors. */
export async function hostWithDialects(dataDir: string, extra: CordonPlugin[] = []): Promise<CordonHost> {
  const host = new CordonHost({ dataDir, configDir: dataDir, cacheDir: dataDir }, '0.0.0-test');
  const collected = await Promise.all([claudeCode(), codex(), cursor(), gemini(), hermes()]);
  await host.applyPlugins([...collected, ...extra].map((descriptor) => ({ source: descriptor.name, descriptor })));
  if (host.failures.length) throw host.failures[0];
  return host;
}

/** A plugin whose beforeToolCall tap denies commands containing `marker`, or rewrites them with `rewrite`. */
export function policyPlugin(marker: string, answer: { kind: 'deny'; reason: string } | { kind: 'rewrite'; toolInput: Record<string, unknown> }): CordonPlugin {
  return {
    name: 'test-policy',
    apply(api) {
      api.hooks.beforeToolCall.tapPromise({ name: 'policy', stage: api.stage.GUARD }, async (call) => (call.command.includes(marker) ? { ...answer, by: 'test-policy' } : undefined));
    },
  };
}

/** The five agent dialect plugins of this checkout, as `linkPluginRoots` entries. */
export const AGENT_PLUGINS = (['claude-code', 'codex', 'gemini', 'cursor', 'hermes'] as const).map((a) => ({ name: `@cordon/${a}`, root: join(REPO, 'plugins', a) }));

/**
 * Writes a plugin package into `dir` whose `hook` tap (`tapPromise`, stage GUARD) is `body` (JS
 * source of a function); returns it as a `linkPluginRoots` entry.
 */
export function tapPlugin(dir: string, name: string, body: string, hook: 'beforeToolCall' | 'afterToolCall' = 'beforeToolCall'): { name: string; root: string } {
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '0.0.0', type: 'module', oclif: { hooks: { 'cordon:register': { target: './index.js', identifier: 'register' } } } }));
  writeFileSync(join(dir, 'index.js'), `export async function register() { return { name: ${JSON.stringify(name)}, apply(api) { api.hooks.${hook}.tapPromise({ name: 'tap', stage: api.stage.GUARD }, ${body}); } }; }\n`);
  return { name, root: dir };
}

/**
 * Hook bounds far above anything a loaded machine needs, for a test that asserts what a hook run
 * recorded or loaded: with the defaults (3 s for stdin, 10 s in all) a starved hook gives up by
 * design, records nothing, and a later call then does the work the test thought was done.
 * (A test of the bounds themselves sets its own.)
 */
export const PATIENT_HOOK_ENV = Object.freeze({ CORDON_HOOK_STDIN_TIMEOUT_MS: '120000', CORDON_HOOK_TIMEOUT_MS: '120000' });

/** The entries of `<dataDir>/logs/cordon.log`, parsed; `[]` when there is none. */
export function hookLog(dataDir: string): Array<Record<string, unknown>> {
  const file = join(dataDir, 'logs', 'cordon.log');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
}

/**
 * Runs the built hook from bash with fd 0 set up by `stdin` (a redirection such as `< file` or a
 * process substitution), as agents that are not Node processes hand it over (Codex and Hermes
 * give a pipe). A hook still running after a minute is killed (`signal` then says so).
 */
export function hookViaShell(args: readonly string[], stdin: string, env: NodeJS.ProcessEnv): Promise<RunResult & { ms: number }> {
  const script = `exec "$0" "$1" hook ${args.map((a) => `'${a}'`).join(' ')} ${stdin}`;
  return collect(spawn('/bin/bash', ['-c', script, process.execPath, CORDON_BIN], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/**
 * Runs the built hook as Node-based agents do (stdin a socketpair): writes `input` (if any) and
 * ends stdin unless `keepOpen`. A hook still running after a minute is killed.
 */
export function hookViaSocket(args: readonly string[], input: string | Buffer | undefined, keepOpen: boolean, env: NodeJS.ProcessEnv): Promise<RunResult & { ms: number }> {
  const child = spawn(process.execPath, [CORDON_BIN, 'hook', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => undefined);
  if (input !== undefined) child.stdin.write(input);
  if (!keepOpen) child.stdin.end();
  return collect(child).finally(() => child.stdin.destroy());
}

/** Runs `node <args>` (stdin closed) and collects what it printed, like the hook runners above. */
export function runNode(args: readonly string[], env: NodeJS.ProcessEnv): Promise<RunResult & { ms: number }> {
  return collect(spawn(process.execPath, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** What a spawned hook printed and how it ended, once its output is closed; SIGKILL after `killAfterMs` (a minute). */
export function collect(child: ChildProcess, killAfterMs = 60_000): Promise<RunResult & { ms: number }> {
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    const kill = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('close', (exitCode, signal) => {
      clearTimeout(kill);
      resolvePromise({ exitCode, signal, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), ms: Date.now() - started });
    });
  });
}
