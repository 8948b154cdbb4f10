import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CordonPlugin } from '@cordon/plugin-api';
import { CordonHost } from '../../src/bus/host.js';
import { register as claudeCode } from '../../../../plugins/claude-code/src/index.js';
import { register as codex } from '../../../../plugins/codex/src/index.js';
import { register as cursor } from '../../../../plugins/cursor/src/index.js';
import { register as gemini } from '../../../../plugins/gemini/src/index.js';
import { register as hermes } from '../../../../plugins/hermes/src/index.js';

/** The repository root. */
export const REPO = resolve(fileURLToPath(new URL('../../../../', import.meta.url)));

/** The captured payloads (shared/ sits beside the checkout, in CI too). */
export const FIXTURES = resolve(REPO, '../shared/fixtures/hook-payloads');

/** Every fixture payload: `{file, agent, event, payload}`; throws if the directory is missing. */
export function fixtures(): Array<{ file: string; agent: 'claude-code' | 'codex' | 'gemini'; event: string; variant: string; payload: Record<string, unknown> }> {
  if (!existsSync(FIXTURES)) throw new Error(`hook payload fixtures not found at ${FIXTURES} (shared/ must sit beside the checkout)`);
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
