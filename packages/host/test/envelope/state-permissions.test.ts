import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unprivilegedRepo } from '../../../../test/support/unprivileged.js';

// An agent can `chmod` `.cordon/`; another user (root) can write its files 0600. `check`,
// `status` and `reset` then crashed with exit 1 and a bare EACCES, or called the envelope
// damaged. They refuse (exit 2) with a code from the catalogue and say it is a permission.

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cordon-state-perms-'));
});
afterEach(() => {
  try {
    chmodSync(join(root, 'home/repo/.cordon'), 0o700);
  } catch {
    // Never made, or already removed.
  }
  rmSync(root, { recursive: true, force: true });
});

describe('a .cordon/ this user cannot read or move', () => {
  it.each([0o444, 0o000])('mode %o: check and status refuse naming a permission, reset refuses and keeps it', async (mode) => {
    const { repo, cordon } = await unprivilegedRepo(root, { 'src/a.txt': 'a\n' });
    expect((await cordon(['arm', 'perms', '--allow', 'src/**'])).exitCode).toBe(0);
    chmodSync(join(repo, '.cordon'), mode);
    for (const command of ['check', 'status', 'reset']) {
      const run = await cordon([command, '--json']);
      expect(run.exitCode, `${command}: ${run.stderr}`).toBe(2);
      const error = JSON.parse(run.stdout || run.stderr) as { error?: { code: string; message: string } } & { code?: string; message?: string };
      const { code, message } = error.error ?? (error as { code: string; message: string });
      expect(code, command).toMatch(/^CORDON_(BAD_STATE|STATE_WRITE|STATE_FOREIGN)$/);
      expect(message, command).not.toMatch(/damaged/);
      if (code !== 'CORDON_STATE_FOREIGN') expect(message, command).toMatch(/permission denied/);
    }
    chmodSync(join(repo, '.cordon'), 0o700);
    // Nothing was lost: the envelope still checks.
    expect((await cordon(['check'])).exitCode).toBe(0);
  });
});
