import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, makeSandbox, runCordon, runProcess, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../test/support/git.js';

const FIXTURE = join(REPO_ROOT, 'packages/host/test/fixtures/plugin-probe');
const BROKEN = join(REPO_ROOT, 'packages/host/test/fixtures/plugin-broken');
const FIRST_PARTY = ['aider', 'cgroup-linux', 'claude-code', 'codex', 'cursor', 'gemini', 'hermes', 'sampler-windows'];

let box: Sandbox;
/** Output with its line wrapping (oclif's, at the terminal width) undone. */
const flat = (text: string) => text.replace(/\s*\n\s*/g, ' ');

/** Arms a scratch repo, makes an in-policy change and runs `cordon check --json`: the probe's audit tap must fire. */
async function expectAuditTapFires(): Promise<void> {
  const repo = makeRepo(box.dir('repo'), { 'src/a.txt': 'a\n' }, box.env);
  expect((await runCordon(['arm', 'probe', '--allow', 'src/**'], { env: box.env, cwd: repo })).exitCode).toBe(0);
  writeFiles(repo, { 'src/a.txt': 'a\nb\n' });
  const check = await runCordon(['check', '--json'], { env: box.env, cwd: repo });
  expect(check.exitCode, check.stderr).toBe(3);
  expect(JSON.parse(check.stdout).violations).toContainEqual(expect.objectContaining({ code: 'probe_violation', message: 'probe plugin: audit tap fired' }));
}
beforeEach(() => (box = makeSandbox()));
afterEach(() => box.cleanup());

async function info(): Promise<{ plugins: { applied: string[]; failed: Array<{ plugin: string; hook: string; message: string }> }; taps: Record<string, Array<{ name: string; plugin: string }>> }> {
  const r = await runCordon(['info', '--json'], { env: box.env });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('cordon plugins', () => {
  it('installs a packed plugin tarball: its command runs, its audit tap fires in cordon check, and no second host comes along', async () => {
    const packDir = box.dir('pack');
    const packed = await runProcess(['npm', 'pack', '--pack-destination', packDir, FIXTURE], { env: box.env });
    expect(packed.exitCode, packed.stderr).toBe(0);
    const tgz = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz'))!);
    const install = await runCordon(['plugins', 'install', `file:${tgz}`], { env: box.env, timeoutMs: 300_000 });
    expect(install.exitCode, install.stderr).toBe(0);

    const hello = await runCordon(['probe-hello'], { env: box.env });
    expect(hello.exitCode, hello.stderr).toBe(0);
    expect(hello.stdout).toMatch(/^probe-hello host=0\.1\.0 stage\.POLICY=-1000$/m);

    const report = await info();
    expect(report.plugins.applied).toEqual(['probe']);
    expect(report.taps.audit).toEqual([expect.objectContaining({ name: 'probe-audit', plugin: 'probe' })]);
    expect(report.taps.beforeToolCall).toEqual([expect.objectContaining({ name: 'probe-deny', plugin: 'probe' })]);
    await expectAuditTapFires();

    const modules = join(box.dataDir, 'node_modules');
    expect(existsSync(join(modules, 'cordon-plugin-probe'))).toBe(true);
    expect(existsSync(join(modules, '@cordon/host'))).toBe(false);
    expect(existsSync(join(modules, 'better-sqlite3'))).toBe(false);
  }, 300_000);

  it('links a plugin directory with --no-install and reads it from the data dir package.json', async () => {
    const link = await runCordon(['plugins', 'link', FIXTURE, '--no-install'], { env: box.env });
    expect(link.exitCode, link.stderr).toBe(0);
    // Built (its entry files exist): no warning.
    expect(link.stderr).not.toContain('warning');
    const pjson = JSON.parse(readFileSync(join(box.dataDir, 'package.json'), 'utf8'));
    expect(pjson.oclif.plugins).toEqual([{ name: 'cordon-plugin-probe', root: FIXTURE, type: 'link' }]);
    const hello = await runCordon(['probe-hello'], { env: box.env });
    expect(hello.stdout).toMatch(/probe-hello host=0\.1\.0/);
    expect((await info()).plugins.applied).toEqual(['probe']);
    await expectAuditTapFires();
  });

  it('a linked checkout never built (no dist/): link warns, and every command, the fast check route and doctor say to build it or unlink it', async () => {
    const acme = box.dir('acme');
    cpSync(join(REPO_ROOT, 'examples/acme-adapter'), acme, { recursive: true, filter: (src) => !/[\\/](dist|node_modules)$/.test(src) });
    const entry = join(acme, 'dist/index.js');
    expect(existsSync(entry)).toBe(false);
    const fix = `build it (\`npm run build\` in ${acme}), or unlink it (\`cordon plugins unlink @acme/cordon-plugin-acme\`)`;
    const link = await runCordon(['plugins', 'link', acme, '--no-install'], { env: box.env });
    expect(link.exitCode, link.stderr).toBe(0);
    expect(flat(link.stderr)).toContain(`warning: @acme/cordon-plugin-acme: it is linked from ${acme}, which is not built: ${entry} does not exist, so every command will warn that it failed to load; ${fix}`);
    const said = `plugin "@acme/cordon-plugin-acme" failed in hook "register": it is linked from ${acme}, which is not built: ${entry} does not exist; ${fix}`;
    const r = await runCordon(['info', '--json'], { env: box.env });
    expect(flat(r.stderr)).toContain(said);
    expect(r.stderr).not.toContain('MODULE_NOT_FOUND');
    // The fast route (`cordon check`, no oclif) says the same.
    expect((await runCordon(['plugins', 'link', FIXTURE, '--no-install'], { env: box.env })).exitCode).toBe(0);
    const repo = makeRepo(box.dir('repo'), { 'src/a.txt': 'a\n' }, box.env);
    expect((await runCordon(['arm', 'probe', '--allow', 'src/**'], { env: box.env, cwd: repo })).exitCode).toBe(0);
    expect(flat((await runCordon(['check'], { env: box.env, cwd: repo })).stderr)).toContain(said);
    const doctor = await runCordon(['doctor', '--json'], { env: box.env });
    const rows = (JSON.parse(doctor.stdout) as { findings: Array<{ check: string; message: string; fix?: string }> }).findings.filter((f) => f.check === 'plugins');
    expect(rows).toEqual([expect.objectContaining({ message: expect.stringContaining(said), fix: expect.stringContaining(fix) })]);
    expect(rows[0]!.fix).not.toContain('reinstall');
  });

  it('links every first-party plugin; each registers under its own name', async () => {
    for (const name of FIRST_PARTY) {
      const r = await runCordon(['plugins', 'link', join(REPO_ROOT, 'plugins', name), '--no-install'], { env: box.env });
      expect(r.exitCode, r.stderr).toBe(0);
    }
    expect((await info()).plugins.applied).toEqual(FIRST_PARTY);
  }, 120_000);

  it('a plugin that throws is named with its hook and does not stop other commands or plugins', async () => {
    for (const dir of [BROKEN, FIXTURE]) expect((await runCordon(['plugins', 'link', dir, '--no-install'], { env: box.env })).exitCode).toBe(0);
    const r = await runCordon(['info', '--json'], { env: box.env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('plugin "broken" failed in hook "register": broken plugin refuses to start');
    const report = JSON.parse(r.stdout);
    expect(report.plugins.applied).toEqual(['probe']);
    expect(report.plugins.failed).toEqual([{ plugin: 'broken', hook: 'register', message: 'plugin "broken" failed in hook "register": broken plugin refuses to start' }]);
    expect((await runCordon(['probe-hello'], { env: box.env })).exitCode).toBe(0);
    expect((await runCordon(['--version'], { env: box.env })).stdout).toMatch(/^@cordon\/host\/0\.1\.0 /);
  });
});
