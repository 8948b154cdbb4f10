#!/usr/bin/env node
// `npm run demo`: the README quickstart's main job. Builds cordon if needed, creates a scratch
// git repository, arms a change envelope on it, then shows an in-policy change accepted (exit 0)
// and an out-of-policy change rejected (exit 3) with cordon's real output. Exits 0 only when
// both verdicts come out as expected. The scratch directory is removed at the end unless
// `--keep` is given (`npm run demo -- --keep`), for a user who wants to look at it afterwards.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'packages', 'host', 'bin', 'run.cjs');

if (!existsSync(join(root, 'packages', 'host', 'dist', 'commands', 'check.js')) || !existsSync(join(root, 'packages', 'host', 'oclif.manifest.json'))) {
  console.log('cordon is not built yet: running `npm run build` …');
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
}

const keep = process.argv.slice(2).includes('--keep');
const scratch = mkdtempSync(join(tmpdir(), 'cordon-demo-'));
const repo = join(scratch, 'repo');
mkdirSync(repo);
// The demo's cordon keeps its data, config and caches in the scratch directory too: it leaves
// nothing behind in the user's ~/.local/share/cordon or ~/.cache/cordon.
const env = { ...process.env, CORDON_DATA_DIR: join(scratch, 'data'), CORDON_CONFIG_DIR: join(scratch, 'config'), CORDON_CACHE_DIR: join(scratch, 'cache') };
const git = (...args) => execFileSync('git', args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
const write = (path, text) => {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
};
const shown = (args) => args.map((a) => (/^[\w./=-]+$/.test(a) ? a : `'${a}'`)).join(' ');

/** Runs cordon, prints the command and its real output, returns the exit code. */
function cordon(...args) {
  console.log(`\n$ cordon ${shown(args)}`);
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: repo, env, encoding: 'utf8' });
  const out = `${r.stdout}${r.stderr}`.trimEnd();
  // Blank lines stay empty: indented, they would end in spaces nobody sees.
  if (out) console.log(out.replace(/^(?=.)/gm, '  '));
  console.log(`  (exit ${r.status})`);
  return r.status;
}

let ok = true;
function expectExit(what, got, want) {
  const pass = got === want;
  ok &&= pass;
  console.log(`${pass ? '✔' : '✘'} ${what}: exit ${got}${pass ? '' : `, expected ${want}`}`);
}

try {
  console.log(`Scratch repository: ${repo} (${keep ? 'kept after the demo' : 'removed when the demo ends; `npm run demo -- --keep` keeps it'})`);
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Cordon Demo');
  git('config', 'user.email', 'demo@cordon.invalid');
  git('config', 'commit.gpgsign', 'false');
  write('src/app.mjs', 'export function greet(name) {\n  return `hello ${name}`;\n}\n');
  write('README.md', '# demo project\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  console.log('Committed src/app.mjs and README.md.');

  console.log('\n1. Arm an envelope: only src/** may change, at most 5 files, and src/app.mjs must still parse.');
  expectExit('arm', cordon('arm', 'teach greet() to shout', '--allow', 'src/**', '--max-files', '5', '--verify', 'node --check src/app.mjs'), 0);

  console.log('\n2. An in-policy change: edit src/app.mjs.');
  const shouting = 'export function greet(name) {\n  return `HELLO ${name.toUpperCase()}!`;\n}\n';
  write('src/app.mjs', shouting);
  expectExit('in-policy change accepted', cordon('check'), 0);

  console.log('\n3. A change inside the policy that no longer parses: the verifier rejects it.');
  // `.mjs`, not `.js`: Node 20's `node --check` passes a `.js` file with ES module syntax unparsed.
  write('src/app.mjs', 'export function greet(name) {\n  return `HELLO ${name.toUpperCase()}!`\n');
  expectExit('broken change rejected', cordon('check'), 3);
  write('src/app.mjs', shouting);

  console.log('\n4. An out-of-policy change: also rewrite README.md, which --allow does not cover.');
  write('README.md', '# demo project\n\nNow shouting.\n');
  expectExit('out-of-policy change rejected', cordon('check'), 3);

  cordon('status');
  cordon('reset');
} catch (error) {
  ok = false;
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (keep) console.log(`\nKept: ${repo} (cordon's own data for it in ${scratch}); remove the directory when done.`);
  else rmSync(scratch, { recursive: true, force: true });
}

console.log(ok ? '\nDemo passed: the in-policy change was accepted, the broken one and the out-of-policy one rejected.' : '\nDemo FAILED.');
process.exit(ok ? 0 : 1);
