import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompactionPlan, LedgerHandle } from '@cordon/plugin-api';
import { CordonHost } from '../../src/index.js';
import { tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
const open: LedgerHandle[] = [];
beforeEach(() => (tmp = tempDir()));
afterEach(async () => {
  for (const l of open.splice(0)) await l.close();
  tmp.cleanup();
});

describe('api.services.ledger', () => {
  async function hostWithTaps(): Promise<CordonHost> {
    const host = new CordonHost({ dataDir: join(tmp.dir, 'data'), configDir: join(tmp.dir, 'config'), cacheDir: join(tmp.dir, 'cache') }, '0.0.0-test');
    await host.applyPlugins([
      {
        source: 'reviewer',
        descriptor: {
          name: 'reviewer',
          apply(api: { stage: { POLICY: number }; hooks: { compact: { tapPromise(o: object, fn: (p: CompactionPlan) => Promise<CompactionPlan>): void } } }) {
            api.hooks.compact.tapPromise({ name: 'refuse-secrets', stage: api.stage.POLICY }, async (plan) => {
              if (plan.ranges.some((r) => r.summary.includes('secret'))) throw new Error('summaries must not mention secrets');
              return plan;
            });
            api.hooks.compact.tapPromise({ name: 'stamp' }, async (plan) => ({ ...plan, ranges: plan.ranges.map((r) => ({ ...r, summary: `${r.summary} (reviewed)` })) }));
          },
        },
      },
    ]);
    expect(host.failures).toEqual([]);
    return host;
  }

  it('resolves paths as the Rust pcodx, SichangHe/partial_compact_codex says and fires the host compact hook before storing', async () => {
    const host = await hostWithTaps();
    const service = host.apiFor('codex').services.ledger;
    const db = join(tmp.dir, 'x', 'l.sqlite3');
    expect(service.resolvePath({ db })).toBe(db);
    expect(service.resolvePath({ env: { PCODX_DB: db } })).toBe(db);
    const ledger = await service.open({ db });
    open.push(ledger);
    const s = await ledger.resolveSession({ mode: 'create', id: 's' });
    await ledger.record(s.id, [{ role: 'assistant', text: 'a' }, { role: 'assistant', text: 'b' }]);
    await ledger.compact(s.id, [{ from: 'msg1', to: 'msg1', summary: 'first' }]);
    expect(await ledger.render(s.id)).toBe('first (reviewed)\n<aboveturn id="cmp1"/>\n\nb\n<aboveturn id="msg2"/>');
  });

  it('a tap that refuses stops the compaction with a CordonPluginError naming the plugin; nothing is stored', async () => {
    const host = await hostWithTaps();
    const ledger = await host.apiFor('codex').services.ledger.open({ db: join(tmp.dir, 'l.sqlite3') });
    open.push(ledger);
    await ledger.resolveSession({ mode: 'create', id: 's' });
    await ledger.record('s', [{ role: 'assistant', text: 'a' }]);
    await expect(ledger.compact('s', [{ from: 'msg1', to: 'msg1', summary: 'the secret is 42' }])).rejects.toMatchObject({
      code: 'CORDON_PLUGIN_ERROR',
      message: 'plugin "reviewer" failed in hook "compact": summaries must not mention secrets',
    });
    expect(await ledger.compactions('s')).toEqual([]);
  });
});
