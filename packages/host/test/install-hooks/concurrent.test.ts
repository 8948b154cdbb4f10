import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../test/support/cli.js';
import { acquireLock } from '../../src/envelope/lock.js';
import { takeInstallLock } from '../../src/install-hooks/lock.js';
import { cordonJson, HOOK_AGENTS, hooksSandbox, writeFiles } from './support.js';

// Found by a hostile-input probe: install-hooks runs started at once for different agents (a
// setup script installing them in parallel) each read the install record, wrote their files and
// saved the record as they had read it plus their own files, so the last to save dropped the
// others' entries (3 to 5 of 6 kept in four tries). Uninstall then could give neither the
// original bytes back nor delete the files and directories install had created.

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let home: string;
let project: string;

beforeEach(() => {
  ({ sandbox, home, project, env } = hooksSandbox('cordon-hooks-concurrent-'));
});
afterEach(() => sandbox.cleanup());

describe('install-hooks runs at once', () => {
  it('each keep their files in the install record, so uninstall restores every original', async () => {
    const files: Record<string, string> = {
      '.claude/settings.json': '{"model": "x"}\n',
      '.gemini/settings.json': '{}\n',
      '.cursor/hooks.json': '{"version": 1}\n',
      '.hermes/config.yaml': 'model: x\n',
    };
    writeFiles(home, files);
    const runs = await Promise.all(HOOK_AGENTS.map((agent) => cordonJson(['install-hooks', '--agent', agent, '--write'], env, project)));
    for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
    const record = JSON.parse(readFileSync(join(sandbox.dataDir, 'install-hooks.json'), 'utf8')) as { files: Record<string, unknown> };
    expect(Object.keys(record.files).sort()).toEqual(['.claude/settings.json', '.codex/config.toml', '.codex/hooks.json', '.cursor/hooks.json', '.gemini/settings.json', '.hermes/config.yaml'].map((p) => join(home, p)).sort());
    expect(existsSync(join(sandbox.dataDir, 'install-hooks.lock'))).toBe(false);

    const removed = await cordonJson(['uninstall-hooks', ...HOOK_AGENTS.flatMap((a) => ['--agent', a]), '--write'], env, project);
    expect(removed.exitCode, removed.stderr).toBe(0);
    for (const [path, text] of Object.entries(files)) expect(readFileSync(join(home, path), 'utf8')).toBe(text);
    expect(existsSync(join(home, '.codex'))).toBe(false); // created by install, removed with its files
  });

  it('refuse after waiting while a live process holds the lock, naming it (CORDON_LOCK_HELD)', async () => {
    const held = acquireLock(join(sandbox.dataDir, 'install-hooks.lock'), 'cordon install-hooks --write');
    try {
      const started = Date.now();
      const error = await takeInstallLock(sandbox.dataDir, 'cordon uninstall-hooks --write', 300).catch((e: unknown) => e as { code: string; message: string });
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect((error as { code: string }).code).toBe('CORDON_LOCK_HELD');
      expect((error as { message: string }).message).toContain(`another cordon process is writing agent configs (cordon install-hooks --write, pid ${process.pid} `);
      expect((error as { message: string }).message).toContain('nothing was written');
    } finally {
      held.release();
    }
    const lock = await takeInstallLock(sandbox.dataDir, 'cordon uninstall-hooks --write', 300);
    lock.release();
  });
});
