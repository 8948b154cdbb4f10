import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeSandbox, REPO_ROOT, type Sandbox } from '../../support/cli.js';

// The README's quickstart runs `npm run demo` (scripts/demo.mjs) on the built checkout: it must
// keep passing as the CLI changes (it once pointed at a renamed bin).

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-demo-test-');
});
afterEach(() => sandbox.cleanup());

it('npm run demo: arms, accepts the in-policy change, rejects the out-of-policy one, exit 0', () => {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/demo.mjs')], { cwd: REPO_ROOT, env: sandbox.env, encoding: 'utf8', timeout: 120_000 });
  expect(r.stderr).toBe('');
  expect(r.status, r.stdout).toBe(0);
  expect(r.stdout).not.toContain('is not built yet');
  expect(r.stdout).toContain('Demo passed');
  expect(r.stdout).toMatch(/\$ cordon check\n[\s\S]*accepted: /);
  expect(r.stdout).toMatch(/rejected: /);
  // The verifier really parses the file (a `.js` file with ES module syntax would pass `node --check` on Node 20).
  expect(r.stdout).toContain('verifier failed (exit 1): node --check src/app.mjs');
  // No line ends in whitespace: not the verifier's blank lines, not the demo's own indent.
  for (const line of r.stdout.split('\n')) expect(line, JSON.stringify(line)).not.toMatch(/\s$/);
});

// A fresh user was shown the scratch repository's path and found it gone: the line says it is
// removed at the end, and `--keep` keeps it.
it('npm run demo says its scratch repository is removed at the end; -- --keep keeps it', () => {
  const shownPath = (stdout: string): string => /^Scratch repository: (\S+) \(/m.exec(stdout)?.[1] ?? '';
  const plain = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/demo.mjs')], { cwd: REPO_ROOT, env: sandbox.env, encoding: 'utf8', timeout: 120_000 });
  expect(plain.status, plain.stdout).toBe(0);
  expect(plain.stdout).toContain('removed when the demo ends; `npm run demo -- --keep` keeps it');
  expect(shownPath(plain.stdout)).not.toBe('');
  expect(existsSync(shownPath(plain.stdout))).toBe(false);
  const kept = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/demo.mjs'), '--keep'], { cwd: REPO_ROOT, env: sandbox.env, encoding: 'utf8', timeout: 120_000 });
  const repo = shownPath(kept.stdout);
  try {
    expect(kept.status, kept.stdout).toBe(0);
    expect(existsSync(join(repo, 'src/app.mjs'))).toBe(true);
    expect(kept.stdout).toContain(`Kept: ${repo}`);
  } finally {
    if (repo) rmSync(dirname(repo), { recursive: true, force: true });
  }
});
