import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, REPO_ROOT, makeSandbox, runCordon, runProcess, type Sandbox } from '../../../../test/support/cli.js';
import { linkCodex, tableRows } from './support.js';

const PCODX_BIN = join(REPO_ROOT, 'plugins/codex/bin/pcodx.js');
let box: Sandbox;
let db: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  box = makeSandbox('cordon-pcodx-bin-');
  linkCodex(box);
  db = join(box.root, 'pcodx.sqlite3');
  // Only node's own directory on PATH: no `cordon` to be found there.
  env = { ...box.env, PCODX_DB: db, PATH: dirname(process.execPath) };
  delete env.CORDON_BIN;
});
afterEach(() => box.cleanup());

const pcodxBin = (args: string[], options: { env?: NodeJS.ProcessEnv; input?: string; bin?: string } = {}) =>
  runProcess([process.execPath, options.bin ?? PCODX_BIN, ...args], { env: options.env ?? env, input: options.input });

describe('the pcodx bin delegates to `cordon pcodx`', () => {
  it('runs the cordon named by CORDON_BIN, passing stdin, stdout, stderr and the exit code through', async () => {
    const e = { ...env, CORDON_BIN };
    const init = await pcodxBin(['init', '--session', 'b'], { env: e });
    expect([init.exitCode, init.stdout]).toEqual([0, `session_id=b\ndb_path=${db}\n`]);
    const piped = await pcodxBin(['record', '--role', 'user', '--text-file', '-'], { env: e, input: 'through the bin' });
    expect(piped.stdout).toContain('message_id=msg1\n');
    const loop = await pcodxBin(['interactive'], { env: e, input: 'hi\n/exit\n' });
    expect(loop.exitCode).toBe(0);
    expect(loop.stdout).toContain('prompt_message_id=msg2\n');
    const refused = await pcodxBin(['show', '--session', 'ghost'], { env: e });
    expect([refused.exitCode, refused.stderr]).toEqual([1, 'error: unknown session `ghost` (`cordon pcodx sessions` lists the sessions of this ledger)\n']);
    const usage = await pcodxBin(['record', '--role', 'robot', '--text', 'x'], { env: e });
    expect(usage.exitCode).toBe(2);
    expect(tableRows(db, 'select text from messages order by seq')).toEqual([{ text: 'through the bin' }, { text: 'hi' }]);
  });

  it('--version is this package\'s version and --help speaks of `pcodx`, not `cordon pcodx`', async () => {
    const e = { ...env, CORDON_BIN };
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'plugins/codex/package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const v = await pcodxBin([flag], { env: e });
      expect([v.exitCode, v.stdout]).toEqual([0, `@cordon/codex/${pkg.version} (pcodx runs \`cordon pcodx\` of ${CORDON_BIN})\n`]);
    }
    for (const args of [['--help'], ['show', '--help'], ['compact', '-h']]) {
      const h = await pcodxBin(args, { env: e });
      expect(h.exitCode, args.join(' ')).toBe(0);
      expect(h.stdout, args.join(' ')).toMatch(/\$ pcodx /);
      expect(h.stdout, args.join(' ')).not.toContain('cordon pcodx');
    }
  });

  it('pcodx-model-turn --help shows its own invocation, `pcodx-model-turn`, not `pcodx model-turn`', async () => {
    const h = await pcodxBin(['--help'], { env: { ...env, CORDON_BIN }, bin: join(REPO_ROOT, 'plugins/codex/bin/pcodx-model-turn.js') });
    expect(h.exitCode, h.stderr).toBe(0);
    expect(h.stdout).toMatch(/^USAGE\n {2}\$ pcodx-model-turn \[--db <value>\]/m);
    expect(h.stdout).toMatch(/^ {2}\$ pcodx-model-turn --session demo /m);
    expect(h.stdout).not.toMatch(/pcodx model-turn/);
    // `pcodx model-turn --help` is still `pcodx model-turn`.
    expect((await pcodxBin(['model-turn', '--help'], { env: { ...env, CORDON_BIN } })).stdout).toMatch(/^ {2}\$ pcodx model-turn \[--db/m);
  });

  it('finds `cordon` on PATH when CORDON_BIN is not set', async () => {
    const binDir = box.dir('path-bin');
    const marker = join(box.root, 'used-path-cordon');
    // A shell builtin, not touch(1): PATH holds only node's own directory (not /usr/bin under Node 22 or 24 from .cache/node).
    writeFileSync(join(binDir, 'cordon'), `#!/bin/sh\n: > '${marker}'\nexec '${process.execPath}' '${CORDON_BIN}' "$@"\n`);
    chmodSync(join(binDir, 'cordon'), 0o755);
    const r = await pcodxBin(['init', '--session', 'p'], { env: { ...env, PATH: `${binDir}:${env.PATH}` } });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(`session_id=p\ndb_path=${db}\n`);
    expect(existsSync(marker)).toBe(true);
  });

  it('falls back to the @cordon/host it can resolve (the monorepo), and says what to do when there is none', async () => {
    const r = await pcodxBin(['init', '--session', 'w']);
    expect([r.exitCode, r.stdout]).toEqual([0, `session_id=w\ndb_path=${db}\n`]);
    const lonely = join(box.dir('elsewhere'), 'pcodx.js');
    copyFileSync(PCODX_BIN, lonely);
    const none = await pcodxBin(['init'], { bin: lonely });
    expect(none.exitCode).toBe(127);
    expect(none.stderr).toBe('error: pcodx runs `cordon pcodx`, but no cordon was found: set CORDON_BIN or put cordon on PATH (npm install -g @cordon/host)\n');
  });

  // A CORDON_BIN that cannot run printed Node's spawn error (`error: cannot run /x: spawn /x
  // ENOENT`), naming neither the variable it came from nor what is wrong in words.
  it('a CORDON_BIN that cannot run is named as the variable, with what is wrong in words', async () => {
    const dir = box.dir('not-a-program');
    const text = join(box.root, 'notes.txt');
    writeFileSync(text, 'not a program\n');
    const esc = join(box.root, 'x\u001b]0;t\u0007');
    const remedy = 'point CORDON_BIN at the cordon executable (or its bin/run.cjs), or unset it to use cordon on PATH';
    const cases: Array<[string, string]> = [
      [join(box.root, 'missing'), `CORDON_BIN=${join(box.root, 'missing')}: no such file`],
      [dir, `CORDON_BIN=${dir}: permission denied (a directory, or a file without execute permission)`],
      [text, `CORDON_BIN=${text}: permission denied (a directory, or a file without execute permission)`],
      [esc, `CORDON_BIN=${join(box.root, 'x\\u001b]0;t\\u0007')}: no such file`],
    ];
    for (const [bin, said] of cases) {
      const r = await pcodxBin(['ids'], { env: { ...env, CORDON_BIN: bin } });
      expect([bin, r.exitCode, r.stdout, r.stderr]).toEqual([bin, 127, '', `error: cannot run ${said}; ${remedy}\n`]);
    }
  });

  it('forwards SIGTERM to cordon and ends by the same signal', async () => {
    const child = spawn(process.execPath, [PCODX_BIN, 'interactive', '--session', 's'], { env: { ...env, CORDON_BIN }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b) => (out += b));
    const ended = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    const deadline = Date.now() + 30_000;
    while (!out.includes('session_id=s')) {
      if (Date.now() > deadline) throw new Error('interactive never started');
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGTERM');
    expect(await ended).toBe('SIGTERM');
  }, 60_000);
});

describe('the codex plugin installed with `cordon plugins install` (no host code beside it)', () => {
  it('runs cordon pcodx and its pcodx bin from the data dir; every command loads, and `pcodx serve` runs to its first refusal', async () => {
    const installBox = makeSandbox('cordon-pcodx-install-');
    try {
      const packDir = installBox.dir('pack');
      const packed = await runProcess(['npm', 'pack', '--pack-destination', packDir, join(REPO_ROOT, 'plugins/codex')], { env: installBox.env });
      expect(packed.exitCode, packed.stderr).toBe(0);
      const tgz = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz'))!);
      const install = await runCordon(['plugins', 'install', `file:${tgz}`], { env: installBox.env, timeoutMs: 300_000 });
      expect(install.exitCode, install.stderr).toBe(0);
      // oclif's progress line and nothing else: no "prepare script did not produce all the expected
      // files" (oclif's check that each package.json `files` entry exists, which a pattern fails).
      const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'plugins/codex/package.json'), 'utf8')) as { version: string };
      // oclif colours the plugin's name where it thinks a terminal shows colours (CI=true counts).
      expect(install.stderr.replace(/\u001b\[[0-9;]*m/g, '')).toBe(`@cordon/host: Installing plugin file:${tgz}... installed v${version}\n`);
      const installed = join(installBox.dataDir, 'node_modules', '@cordon', 'codex');
      // The source maps stay out of the package (dist/.npmignore, written by the build).
      expect(readdirSync(installed, { recursive: true }).map(String).filter((f) => f.endsWith('.map') || f.endsWith('.npmignore'))).toEqual([]);
      expect(existsSync(join(installed, 'bin', 'pcodx.js'))).toBe(true);
      expect(existsSync(join(installBox.dataDir, 'node_modules', '@cordon', 'host'))).toBe(false);

      const ledger = join(installBox.root, 'l.sqlite3');
      const e = { ...installBox.env, PCODX_DB: ledger, CORDON_BIN, PATH: dirname(process.execPath) };
      const viaCordon = await runCordon(['pcodx', 'record', '--session', 'inst', '--role', 'user', '--text', 'installed'], { env: e });
      expect([viaCordon.exitCode, viaCordon.stderr]).toEqual([0, '']);
      const viaBin = await runProcess([process.execPath, join(installed, 'bin', 'pcodx.js'), 'show'], { env: e });
      expect([viaBin.exitCode, viaBin.stdout]).toEqual([0, 'installed\n<aboveturn id="msg1"/>\n']);
      // `--cwd` is checked with the host's lent check (api.services.files): the installed plugin has no plugin API to import.
      const missing = join(installBox.root, 'no-such-dir');
      const badCwd = await runCordon(['pcodx', 'record', '--session', 'inst', '--cwd', missing, '--role', 'user', '--text', 'x'], { env: e });
      expect([badCwd.exitCode, badCwd.stderr]).toEqual([2, `error: --cwd ${missing}: no such directory; see \`cordon pcodx record --help\`\n`]);

      // oclif imports a command's module, unbundled, before it parses the flags: an unknown flag
      // refused as a usage error proves the command's modules load from the installed package
      // (they once imported @cordon/plugin-api, which is not installed: MODULE_NOT_FOUND, exit 1).
      const manifest = JSON.parse(readFileSync(join(installed, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, unknown> };
      expect(Object.keys(manifest.commands)).toContain('pcodx:serve');
      for (const id of Object.keys(manifest.commands)) {
        const unknown = await runCordon([...id.split(':'), '--no-such-flag'], { env: e });
        expect([unknown.exitCode, unknown.stderr], id).toEqual([2, expect.stringContaining('--no-such-flag')]);
      }
      // `pcodx serve` runs as far as its first refusal of its own, before it starts or listens on anything.
      const serve = await runCordon(['pcodx', 'serve'], { env: { ...e, PCODX_SERVE_TOKEN: 'short' } });
      expect([serve.exitCode, serve.stdout, serve.stderr]).toEqual([1, '', 'error: PCODX_SERVE_TOKEN must hold at least 32 characters\n']);
    } finally {
      installBox.cleanup();
    }
  }, 300_000);
});
