import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEDGER_SCHEMA_VERSION } from '../../../src/ledger/index.js';
import { makeSandbox, runCordon, type Sandbox } from '../../../../../test/support/cli.js';
import { waitFor } from '../../../../../test/support/wait.js';
import { call, marker } from './helpers.js';
import { TELEMETRY_MIGRATIONS } from '../../../src/telemetry/reduce/db/migrations.js';

// Issue 13 item 18: several processes on a new database (telemetry.sqlite3, the pcodx ledger) at
// once: one migrates, the others wait and see the result.

const WORKER = fileURLToPath(new URL('./fixtures/open-worker.mjs', import.meta.url));
let box: Sandbox;
beforeEach(() => (box = makeSandbox('cordon-telemetry-race-')));
afterEach(() => box.cleanup());

function run(argv: string[], env = process.env): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (b) => (stderr += b));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const schemaVersion = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(`select value from schema_meta where key = 'schema_version'`).pluck().get();
  } finally {
    db.close();
  }
};

const migrations = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('select name from kysely_migration').pluck().all();
  } finally {
    db.close();
  }
};

describe('concurrent first use of the telemetry database', () => {
  for (const kind of ['telemetry', 'ledger'] as const) {
    it(`10 processes opening 20 fresh ${kind} databases in the same order all succeed, each migrated once`, async () => {
      const go = join(box.root, 'go');
      const paths = Array.from({ length: 20 }, (_, i) => join(box.root, `db${i}`, 'x.sqlite3'));
      const workers = Array.from({ length: 10 }, () => run([WORKER, kind, go, ...paths]));
      // The start signal once all 10 wait for it (the most contention).
      await waitFor(() => readdirSync(box.root).filter((n) => n.startsWith('go.ready.')).length === 10, { what: '10 workers at the start line', timeoutMs: 60_000 });
      writeFileSync(go, '');
      const results = await Promise.all(workers);
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      for (const p of paths) {
        if (kind === 'telemetry') expect(migrations(p)).toEqual(Object.keys(TELEMETRY_MIGRATIONS).sort());
        else expect(schemaVersion(p)).toBe(String(LEDGER_SCHEMA_VERSION));
      }
    }, 120_000);
  }

  it('several `cordon reduce` on a new telemetry.sqlite3 at once (the issue example)', async () => {
    const T = 1_800_000_000_000;
    marker(box.dataDir, 'race', 'session_start', T);
    call(box.dataDir, 'race', 'k1', T + 100, T + 900, { command: 'make' });
    const results = await Promise.all(Array.from({ length: 6 }, () => runCordon(['reduce', '--session', 'race', '--json'], { env: box.env })));
    for (const r of results) expect(r.exitCode, r.stderr + r.stdout).toBe(0);
    expect(migrations(join(box.dataDir, 'telemetry.sqlite3'))).toEqual(Object.keys(TELEMETRY_MIGRATIONS).sort());
  }, 120_000);
});
