import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HANG_BOUND_MS, REPO_ROOT, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';

// Found by a fresh user: a damaged `<data>/package.json` (the list of linked and installed
// plugins) made every command print Node's raw warning naming no file (`(node:…) SyntaxError:
// Expected property name or '}' in JSON at position 1`), `cordon plugins` say `No plugins
// installed.` with exit 0 and `cordon doctor` that cordon knows no agent. It is one clear error
// now, naming the file, the place and the way out (plugins/data-package.ts); the hook stays
// silent with exit 0 and only logs it. `control run` (an agent's shell call) warns once and runs
// the command; `doctor` shows it as its plugins row and goes on with its other checks.

const PAYLOAD = readFileSync(join(REPO_ROOT, 'test/fixtures/hook-payloads/claude-code.PreToolUse.Bash-blocked-by-hook.json'), 'utf8');

let box: Sandbox;
let pjson: string;
beforeEach(() => {
  box = makeSandbox('cordon-data-package-');
  linkPlugins(box.dataDir, ['claude-code']);
  pjson = join(box.dataDir, 'package.json');
});
afterEach(() => box.cleanup());

describe('a <data>/package.json that is not JSON', () => {
  const fix = (file: string) => `fix it, or remove it (rm ${JSON.stringify(file)}) and add the plugins again: from a checkout \`npm run plugins:link\`, otherwise \`cordon plugins install <name>\``;

  it('is refused by every command with the file, line and column and how to repair it', async () => {
    writeFileSync(pjson, '{bad\n');
    const expected = `${pjson} lists cordon's linked and installed plugins, but it is not valid JSON: invalid symbol at line 1, column 2; ${fix(pjson)}`;
    for (const args of [['plugins'], ['reduce', '--all'], ['info']]) {
      const r = await runCordon(args, { env: box.env });
      expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }, args.join(' ')).toEqual({ exitCode: 2, stdout: '', stderr: `    Error: ${expected}\n    Code: CORDON_BAD_INPUT\n` });
    }
    const json = await runCordon(['plugins', '--json'], { env: box.env });
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT', details: { file: pjson }, message: expected });
    // A JSON document that is no object cannot list plugins either.
    writeFileSync(pjson, '[]\n');
    expect((await runCordon(['plugins'], { env: box.env })).stderr).toContain(`${pjson} lists cordon's linked and installed plugins, but it must hold a JSON object;`);
  });

  // Found by a hostile-input probe: read with readFileSync, a FIFO there held every command,
  // doctor included, until something wrote to it. It is read non-blocking now, regular files only.
  it('a FIFO in its place is refused at once, and doctor reports it, never waiting for a writer', async () => {
    rmSync(pjson);
    execFileSync('mkfifo', [pjson]);
    const r = await runCordon(['plugins'], { env: box.env, timeoutMs: HANG_BOUND_MS });
    expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({ exitCode: 2, stderr: `    Error: ${pjson} lists cordon's linked and installed plugins, but it is not a regular file (a FIFO); ${fix(pjson)}\n    Code: CORDON_BAD_INPUT\n` });
    const doctor = await runCordon(['doctor', '--json'], { env: box.env, timeoutMs: HANG_BOUND_MS });
    expect(doctor.exitCode, doctor.stderr).toBe(1);
    const plugins = JSON.parse(doctor.stdout).findings.filter((f: { check: string }) => f.check === 'plugins');
    expect(plugins).toHaveLength(1);
    expect(plugins[0]).toMatchObject({ status: 'problem', message: `${pjson} lists cordon's linked and installed plugins, but it is not a regular file (a FIFO)` });
  }, 60_000);

  it('doctor reports it as its one failed plugins row, with the fix, and goes on with its other checks', async () => {
    writeFileSync(pjson, '{bad\n');
    const r = await runCordon(['doctor'], { env: box.env });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    const row = lines.findIndex((l) => l.startsWith('!! plugins'));
    expect(lines[row]).toMatch(new RegExp(`^!! plugins +${pjson.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} lists cordon's linked and installed plugins, but it is not valid JSON: invalid symbol at line 1, column 2$`));
    expect(lines[row + 1]!.trim()).toBe(`fix: ${fix(pjson)}`);
    for (const check of ['node', 'sqlite', 'log', 'samplers', 'control']) expect(lines.some((l) => new RegExp(`^(ok|--|!!) ${check} `).test(l)), check).toBe(true);
    expect(lines.filter((l) => l.startsWith('!!'))).toHaveLength(1);
    const json = await runCordon(['doctor', '--json'], { env: box.env });
    expect(json.exitCode).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report.findings.filter((f: { status: string }) => f.status === 'problem')).toEqual([
      expect.objectContaining({ check: 'plugins', fix: fix(pjson), details: expect.objectContaining({ file: pjson, problem: 'it is not valid JSON: invalid symbol at line 1, column 2' }) }),
    ]);
    expect(report.findings.map((f: { check: string }) => f.check)).toEqual(expect.arrayContaining(['node', 'sqlite', 'plugins', 'log', 'samplers', 'control']));
  });

  it('control run warns once on stderr, naming the file and the repair, and runs the command (both routes; JSON null too)', async () => {
    for (const [text, why] of [['{bad\n', 'it is not valid JSON: invalid symbol at line 1, column 2'], ['null\n', 'it must hold a JSON object']] as const) {
      writeFileSync(pjson, text);
      for (const via of [{}, { CORDON_NO_FAST_ROUTE: '1' }]) {
        const r = await runCordon(['control', 'run', '--', 'sh', '-c', 'echo ran; exit 3'], { env: { ...box.env, ...via } });
        const what = `${text.trim()} ${JSON.stringify(via)}`;
        expect([r.exitCode, r.stdout], what).toEqual([3, 'ran\n']);
        expect(r.stderr, what).toBe(`warning: ${pjson} lists cordon's linked and installed plugins, but ${why}; the command runs without the plugins it lists; ${fix(pjson)}\n`);
      }
    }
  });

  it('a list of plugins of the wrong shape is refused the same way, naming the entry; the hook logs it instead of a TypeError', async () => {
    // oclif printed Node's raw warning naming no file (`(node:…) TypeError:
    // pjson.oclif.plugins.filter is not a function`) and `No plugins installed.`, exit 0; the hook
    // logged `hook failed` with `TypeError: number 5 is not iterable`.
    const cases: Array<[unknown, string]> = [
      [{ oclif: { plugins: 5 } }, 'its oclif.plugins is a number (5), not a list'],
      [{ oclif: { plugins: [{ name: 'ok', type: 'user' }, null] } }, 'its oclif.plugins[1] is null, not a plugin entry ({"name", "type"})'],
      [{ oclif: 'x' }, 'its oclif is a string, not an object'],
      [{ oclif: { plugins: [{ name: 'x', type: 'link', root: 5 }] } }, 'its oclif.plugins[0] ("x") is linked, but has a root that is a number (5), not a directory'],
      [{ oclif: { plugins: [{ name: 7, type: 'user' }] } }, 'its oclif.plugins[0] has a name that is a number (7), not a string'],
    ];
    for (const [value, why] of cases) {
      writeFileSync(pjson, `${JSON.stringify(value)}\n`);
      const r = await runCordon(['plugins'], { env: box.env });
      expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }, why).toEqual({ exitCode: 2, stdout: '', stderr: `    Error: ${pjson} lists cordon's linked and installed plugins, but ${why}; ${fix(pjson)}\n    Code: CORDON_BAD_INPUT\n` });
      rmSync(join(box.dataDir, 'logs'), { recursive: true, force: true });
      const hook = await runCordon(['hook', '--agent', 'claude-code'], { env: box.env, input: PAYLOAD });
      expect({ exitCode: hook.exitCode, stdout: hook.stdout, stderr: hook.stderr }, why).toEqual({ exitCode: 0, stdout: '', stderr: '' });
      const log = readFileSync(join(box.dataDir, 'logs', 'cordon.log'), 'utf8');
      expect(log, why).toContain(why.replaceAll('"', '\\"'));
      expect(log, why).not.toContain('hook failed');
    }
    // oclif's older form of an entry, a bare package name, is still read.
    writeFileSync(pjson, '{"oclif":{"plugins":["some-plugin"]}}\n');
    expect((await runCordon(['plugins'], { env: box.env })).exitCode).toBe(0);
  });

  it('leaves the hook silent with exit 0, on its own route and through oclif; its own route logs the file', async () => {
    writeFileSync(pjson, '{bad\n');
    for (const via of [{}, { CORDON_HOOK_VIA_OCLIF: '1' }]) {
      const r = await runCordon(['hook', '--agent', 'claude-code'], { env: { ...box.env, ...via }, input: PAYLOAD });
      expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }, JSON.stringify(via)).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    }
    const log = readFileSync(join(box.dataDir, 'logs', 'cordon.log'), 'utf8');
    expect(log).toContain(`"what":${JSON.stringify(pjson)}`);
    expect(log).toContain('invalid symbol at line 1, column 2');
  });
});

// Found by a probe: a linked plugin whose checkout was deleted, or whose package.json is broken,
// made every command print oclif's five raw lines blaming the host (`(node:…) SyntaxError
// Plugin: @cordon/host: Expected double-quoted property name…`, `root: <the host's folder>`),
// naming no plugin, while `cordon doctor` said `ok plugins`. Now one `warning:` line names the
// plugin, what is wrong and the way out (plugins/listed-plugins.ts); doctor shows a problem row.
describe('a plugin the list names that cannot be loaded', () => {
  const broken = () => {
    const root = join(box.root, 'broken-checkout');
    execFileSync('mkdir', ['-p', root]);
    writeFileSync(join(root, 'package.json'), '{"name": "broken", ');
    const gone = join(box.root, 'deleted-checkout');
    const list = JSON.parse(readFileSync(pjson, 'utf8'));
    list.oclif.plugins.push({ name: 'broken', root, type: 'link' }, { name: 'gone\u001b[2J', root: gone, type: 'link' });
    writeFileSync(pjson, JSON.stringify(list));
    return { root, gone };
  };

  it('is named on one warning line each, with the way out, and the command runs; doctor reports a problem', async () => {
    const { root, gone } = broken();
    const r = await runCordon(['plugins'], { env: box.env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('@cordon/claude-code');
    const warnings = r.stderr.split('\n').filter(Boolean);
    expect(warnings.sort()).toEqual(
      [
        `warning: the plugin broken linked from ${root} cannot be loaded: its package.json is not valid JSON: property name expected at line 1, column 20; cordon runs without it; fix or restore that checkout, or unlink it: \`cordon plugins unlink broken\``,
        `warning: the plugin gone\\u001b[2J linked from ${gone} cannot be loaded: there is no ${gone}/package.json; cordon runs without it; fix or restore that checkout, or unlink it: \`cordon plugins unlink gone\\u001b[2J\``,
      ].sort(),
    );
    expect(r.stderr).not.toContain('@oclif/core');
    const doctor = await runCordon(['doctor', '--json'], { env: box.env });
    expect(doctor.stderr).toBe('');
    // doctor folds the findings of one check into its row.
    const row = JSON.parse(doctor.stdout).findings.find((f: { check: string }) => f.check === 'plugins');
    expect(row.status).toBe('problem');
    expect(row.message).toContain(`the plugin broken linked from ${root} cannot be loaded`);
    expect(row.message).toContain(`the plugin gone\u001b[2J linked from ${gone} cannot be loaded`);
    // The way out works on the broken entry itself.
    const unlinked = await runCordon(['plugins', 'unlink', 'broken'], { env: box.env });
    expect(unlinked.exitCode, unlinked.stderr).toBe(0);
    expect(JSON.parse(readFileSync(pjson, 'utf8')).oclif.plugins.map((p: { name: string }) => p.name)).not.toContain('broken');
  });

  it('leaves the hook silent through oclif, and logs it', async () => {
    broken();
    const r = await runCordon(['hook', '--agent', 'claude-code'], { env: { ...box.env, CORDON_HOOK_VIA_OCLIF: '1' }, input: PAYLOAD });
    expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(readFileSync(join(box.dataDir, 'logs', 'cordon.log'), 'utf8')).toContain('the plugin broken linked from');
  });
});
