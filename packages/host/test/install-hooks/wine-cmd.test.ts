import { spawn, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cmdCommand } from '../../src/install-hooks/quote/cmd.js';
import { powershellCommand } from '../../src/install-hooks/quote/powershell.js';
import { nodeExe, wineDir, wineEnv, winPath } from '../../../../test/support/wine.js';

// The cmd.exe quoting checked by Windows programs: under Wine, the Windows node.exe starts
// `cmd.exe /d /s /c "<line>"` (the exact command line Node's `shell: true` gives cmd.exe) for each
// line built by quote/cmd.ts, and the node.exe that line starts writes its process.argv to a file.
// The argv must come back exactly: program and script under a directory named like
// `Ann O'Neil & Co (x86) 100%PATH%^!`, arguments with spaces, quotes, %VAR% of defined variables,
// carets, parentheses and backslashes. Wine's cmd.exe is a reimplementation of Windows' own, so
// this shows the quoting against one real cmd.exe parser and the C runtime node.exe uses, not
// against every Windows build.
//
// Uses the Wine prefix and node.exe that scripts/install-wine.sh prepares in $CORDON_WINE_DIR
// (default <repo>/.cache/wine); this test does not prepare them. It runs in its own copy of the
// prefix (hard links, except the registry files, which the wineserver rewrites in place), so it
// has its own wineserver: the sampler's Wine suite may run at the same time in
// the shared prefix, and ending this run's wineserver ends nothing of theirs. One wine process
// (the harness) at a time.

/** Why the Wine check cannot run here, or undefined when it can. */
function unavailable(): string | undefined {
  const reason = join(wineDir, 'unavailable');
  if (existsSync(reason)) return readFileSync(reason, 'utf8').trim();
  const onPath = (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, 'wine')));
  if (!onPath) return 'wine is not on PATH';
  if (!existsSync(nodeExe) || !existsSync(join(wineDir, 'prefix'))) return `no prepared Wine prefix and node.exe in ${wineDir} (scripts/install-wine.sh prepares them there; CORDON_WINE_DIR names another directory)`;
  return undefined;
}

// Its own prefix, and only the harness's output: Wine's error channels stay off too.
const prefixEnv = (prefix: string): NodeJS.ProcessEnv => wineEnv({ WINEPREFIX: prefix, WINEDEBUG: '-all' });

/** Runs the Windows node.exe on `script` with `args` under Wine; resolves with its exit code. */
function runWine(work: string, prefix: string, script: string, args: string[], timeoutMs: number): Promise<number | null> {
  // node.exe's stdout must be a file under Wine (on a pipe console.log throws EBADF).
  const out = openSync(join(work, 'stdout.txt'), 'w');
  return new Promise((resolve, reject) => {
    const child = spawn('wine', [nodeExe, winPath(script), ...args], {
      stdio: ['ignore', out, out],
      detached: true,
      env: prefixEnv(prefix),
    });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      closeSync(out);
      reject(e);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      closeSync(out);
      resolve(code);
    });
  });
}

const HARNESS = `
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const results = [];
for (const c of cases) {
  try { fs.unlinkSync(c.out); } catch {}
  // Exactly: cmd.exe /d /s /c "<line>", no quoting added by Node.
  const r = spawnSync(process.env.ComSpec || 'C:\\\\windows\\\\system32\\\\cmd.exe', ['/d', '/s', '/c', '"' + c.line + '"'], { windowsVerbatimArguments: true, stdio: 'inherit', env: { ...process.env, CORDON_ARGV_OUT: c.out }, timeout: 60000 });
  let argv = null;
  try { argv = JSON.parse(fs.readFileSync(c.out, 'utf8')); } catch {}
  results.push({ status: r.status, error: r.error ? String(r.error) : null, argv });
}
fs.writeFileSync(process.argv[3], JSON.stringify(results));
`;

const PRINT_ARGV = `require('node:fs').writeFileSync(process.env.CORDON_ARGV_OUT, JSON.stringify(process.argv.slice(1)));\n`;

/** Argument text that breaks naive cmd.exe quoting. */
const PIECES = [...` '"\\%^&|<>()!;,=*?@~-._`, '%PATH%', '%CORDON_ARGV_OUT%', '!PATH!', '^^', '\\\\"', 'O\'Neil', 'é', '日', 'a', 'Z', '0', 'C:\\x y\\'];
const argument = fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }).map((p) => p.join(''));

describe('cmd.exe quoting under Wine (real cmd.exe, the Windows node.exe)', () => {
  it('cmd.exe /d /s /c "<line>" hands node.exe exactly the argv the line was built from', async (ctx) => {
    const why = unavailable();
    if (why) {
      console.log(`cmd.exe quoting Wine check skipped: ${why}`);
      ctx.skip();
      return;
    }
    const work = join(wineDir, 'run', `hooks-cmd-${process.pid}`);
    rmSync(work, { recursive: true, force: true });
    const odd = join(work, "Ann O'Neil & Co (x86) 100%PATH%^!");
    const plain = join(work, 'plain');
    const prefix = join(work, 'prefix');
    mkdirSync(odd, { recursive: true });
    mkdirSync(plain, { recursive: true });
    try {
      const copy = spawnSync('cp', ['-al', join(wineDir, 'prefix'), prefix]);
      if (copy.status !== 0) expect(spawnSync('cp', ['-a', join(wineDir, 'prefix'), prefix]).status, `copying the prefix: ${copy.stderr}`).toBe(0);
      // The wineserver rewrites the registry files in place: those are real copies.
      for (const reg of readdirSync(prefix).filter((f) => f.endsWith('.reg'))) {
        rmSync(join(prefix, reg));
        copyFileSync(join(wineDir, 'prefix', reg), join(prefix, reg));
      }
      for (const dir of [odd, plain]) {
        try {
          linkSync(nodeExe, join(dir, 'node.exe'));
        } catch {
          copyFileSync(nodeExe, join(dir, 'node.exe'));
        }
        writeFileSync(join(dir, 'print-argv.cjs'), PRINT_ARGV);
      }
      const oddNode = winPath(join(odd, 'node.exe'));
      const oddScript = winPath(join(odd, 'print-argv.cjs'));
      const seed = Number(process.env.CORDON_FC_SEED ?? Date.now() % 2 ** 31);
      console.log(`cmd.exe Wine check: fast-check seed ${seed} (CORDON_FC_SEED reproduces it)`);
      const argvs: string[][] = [
        [oddNode, oddScript, 'hook', '--agent', 'codex'],
        [oddNode, oddScript, '%PATH%', '%CORDON_ARGV_OUT%', '!PATH!', 'a "quoted" word', 'C:\\dir with space\\', '', '^&|<>()'],
        ...fc.sample(fc.array(argument, { minLength: 1, maxLength: 5 }), { numRuns: 6, seed }).map((args) => [oddNode, oddScript, ...args]),
      ];
      const cases = argvs.map((argv, i) => ({ line: cmdCommand(argv), argv, out: winPath(join(work, `argv-${i}.json`)) }));
      // The PowerShell form of plain paths is a bare line: cmd.exe must run it the same way.
      const plainArgv = [winPath(join(plain, 'node.exe')), winPath(join(plain, 'print-argv.cjs')), 'hook', '--agent', 'codex'];
      expect(powershellCommand(plainArgv)).toBe(plainArgv.join(' '));
      cases.push({ line: powershellCommand(plainArgv), argv: plainArgv, out: winPath(join(work, 'argv-plain.json')) });

      writeFileSync(join(work, 'harness.cjs'), HARNESS);
      writeFileSync(join(work, 'cases.json'), JSON.stringify(cases.map(({ line, out }) => ({ line, out }))));
      const code = await runWine(work, prefix, join(work, 'harness.cjs'), [winPath(join(work, 'cases.json')), winPath(join(work, 'results.json'))], 280_000);
      expect(code, readFileSync(join(work, 'stdout.txt'), 'utf8')).toBe(0);
      const results = JSON.parse(readFileSync(join(work, 'results.json'), 'utf8')) as Array<{ status: number | null; error: string | null; argv: string[] | null }>;
      const log = readFileSync(join(work, 'stdout.txt'), 'utf8');
      if (results.some((r) => r.status !== 0)) console.log(log);
      cases.forEach((c, i) => {
        expect({ line: c.line, status: results[i]!.status, error: results[i]!.error, argv: results[i]!.argv }).toEqual({ line: c.line, status: 0, error: null, argv: c.argv.slice(1) });
      });
    } finally {
      // This run's own wineserver (and any process left in it), then its files.
      spawnSync('wineserver', ['-k'], { env: prefixEnv(prefix), timeout: 20_000 });
      spawnSync('wineserver', ['-w'], { env: prefixEnv(prefix), timeout: 20_000 });
      rmSync(work, { recursive: true, force: true });
    }
  }, 300_000);
});
