import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteDriverProblem } from '../../src/util/sqlite-driver.js';

// A better-sqlite3 that cannot load is named in one line with what to run, not `bindings`' list
// of the dozen paths it tried.
const require = createRequire(join(import.meta.dirname, '../../package.json'));

describe('sqliteDriverProblem', () => {
  it('the addon was never built: the real `bindings` error becomes one line with the remedy', () => {
    const root = mkdtempSync(join(tmpdir(), 'cordon-bindings-'));
    let thrown: unknown;
    try {
      const bindings = createRequire(require.resolve('better-sqlite3/package.json'))('bindings') as (o: { bindings: string; module_root: string }) => unknown;
      bindings({ bindings: 'better_sqlite3.node', module_root: root });
    } catch (error) {
      thrown = error;
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    expect(String((thrown as Error).message)).toContain('Could not locate the bindings file');
    const said = sqliteDriverProblem(thrown)!;
    expect(said).toMatch(/^better-sqlite3, the SQLite driver, cannot load under Node\.js v\d+\.\d+\.\d+: its native addon was never built/);
    expect(said).toMatch(/run `npm rebuild better-sqlite3` in \/\S+/);
    expect(said).not.toContain('\n');
    expect(said).not.toContain('→');
  });

  it('an addon of another Node.js, and the package missing', () => {
    const abi = Object.assign(new Error('The module \'/x/better_sqlite3.node\'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 127. This version of Node.js requires\nNODE_MODULE_VERSION 115.'), { code: 'ERR_DLOPEN_FAILED' });
    expect(sqliteDriverProblem(abi)).toContain('its native addon was built for another Node.js');
    let missing: unknown;
    try {
      createRequire(join(tmpdir(), 'nowhere.js'))('better-sqlite3');
    } catch (error) {
      missing = error;
    }
    expect(sqliteDriverProblem(missing)).toContain('the package is not installed');
    expect(sqliteDriverProblem(new Error('SQLITE_BUSY: database is locked'))).toBeUndefined();
  });
});
