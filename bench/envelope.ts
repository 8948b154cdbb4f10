/**
 * `npm run bench:envelope` (issue 2 acceptance): `cordon check` on a repository of 100,000
 * tracked files with 5,000 changed, added, deleted and renamed files, side by side with the bare
 * git commands the audit has to run, in one run. Prints both medians, their ratio (target
 * ≤ 1.5) and cordon's peak RSS.
 *
 * The repository is built once and cached (`$CORDON_BENCH_CACHE`, else
 * `$CORDON_CACHE_DIR/bench`, else the system temp dir); every run resets it, arms it with the
 * built CLI, applies the same changes, then alternates the two contenders.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyChanges, buildBigRepo } from '../packages/host/test/envelope/big-repo.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(ROOT, 'packages/host/bin/run.cjs');
const FILES = Number(process.env.CORDON_BENCH_FILES ?? 100_000);
const CHANGES = Number(process.env.CORDON_BENCH_CHANGES ?? 5_000);
const ROUNDS = Number(process.env.CORDON_BENCH_ROUNDS ?? 11);
const cacheRoot = process.env.CORDON_BENCH_CACHE ?? join(process.env.CORDON_CACHE_DIR ?? join(tmpdir(), 'cordon-bench'), `envelope-${FILES}-v1`);
const repo = join(cacheRoot, 'repo');
const complete = join(cacheRoot, 'complete');
const rssFile = join(cacheRoot, 'rss');
// Records cordon's own peak RSS (KiB) when it exits: a CommonJS preload (`--require`, one small
// file) so the probe adds no ES module loader start-up to the timed command.
const probe = join(cacheRoot, 'rss-probe.cjs');
// cordon's own directories, with every first-party plugin linked as `npm run plugins:link` does
// for a user (the first, untimed round writes the plugin index and the code cache, as a user's
// first command does). Written by main() once the repository is there (building it starts from
// an empty cache root).
const cordonDirs = { CORDON_DATA_DIR: join(cacheRoot, 'data'), CORDON_CONFIG_DIR: join(cacheRoot, 'config'), CORDON_CACHE_DIR: join(cacheRoot, 'cache') };
function writeCordonSetup(): void {
  writeFileSync(probe, "process.on('exit', () => { if (process.env.CORDON_BENCH_RSS) require('node:fs').writeFileSync(process.env.CORDON_BENCH_RSS, String(process.resourceUsage().maxRSS)); });\n");
  mkdirSync(cordonDirs.CORDON_DATA_DIR, { recursive: true });
  const linked = readdirSync(join(ROOT, 'plugins')).map((name) => ({ name: `@cordon/${name}`, root: join(ROOT, 'plugins', name), type: 'link' }));
  writeFileSync(join(cordonDirs.CORDON_DATA_DIR, 'package.json'), JSON.stringify({ name: '@cordon/host', private: true, dependencies: {}, oclif: { schema: 1, plugins: linked } }));
}
const env = { ...process.env, ...cordonDirs, GIT_CONFIG_NOSYSTEM: '1', CORDON_BENCH_RSS: rssFile };
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
const cordon = (...args: string[]) => spawnSync(process.execPath, ['--require', probe, BIN, ...args], { cwd: repo, env, encoding: 'utf8', maxBuffer: 1 << 30 });

function ms(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e6;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'packages/host/dist/commands/check.js'))) {
    console.log('building cordon (npm run build) …');
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  }
  if (!existsSync(complete)) {
    rmSync(cacheRoot, { recursive: true, force: true });
    mkdirSync(cacheRoot, { recursive: true });
    const t = process.hrtime.bigint();
    console.log(`building a ${FILES.toLocaleString('en')}-file repository in ${repo} (once) …`);
    await buildBigRepo(repo, { files: FILES });
    writeFileSync(complete, new Date().toISOString());
    console.log(`built in ${(ms(t) / 1000).toFixed(1)} s`);
  }
  writeCordonSetup();
  // Back to the committed state, as a user would be before arming.
  cordon('reset');
  git('reset', '-q', '--hard', 'main');
  git('clean', '-qfd');
  await new Promise((r) => setTimeout(r, 1100));
  git('update-index', '-q', '--refresh');

  const armStart = process.hrtime.bigint();
  const armed = cordon('arm', 'bench', '--allow', '**', '--max-files', '1000000', '--max-added-lines', '100000000', '--max-deleted-lines', '100000000', '--max-working-bytes', '100000000000', '--max-binary-files', '1000000', '--json');
  if (armed.status !== 0) throw new Error(`cordon arm failed (${armed.status}): ${armed.stderr}`);
  const armMs = ms(armStart);
  const baseline = (JSON.parse(armed.stdout) as { baseline: string }).baseline;
  const counts = applyChanges(repo, { files: FILES }, CHANGES);

  const bare: string[][] = [
    ['rev-parse', '--show-toplevel', '--verify', 'HEAD'],
    ['diff', '--raw', '--numstat', '-z', '--no-abbrev', '--no-renames', '--no-ext-diff', '--no-textconv', baseline, '--'],
    ['ls-files', '-z', '-v'],
    ['ls-files', '-z', '--others', '--directory'],
  ];
  const { check } = (await import(join(ROOT, 'packages/host/dist/envelope/check.js'))) as typeof import('../packages/host/src/envelope/check.js');
  const cordonTimes: number[] = [];
  const gitTimes: number[] = [];
  const libraryTimes: number[] = [];
  const startupTimes: number[] = [];
  const nodeTimes: number[] = [];
  const rss: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    let t = process.hrtime.bigint();
    const r = cordon('check');
    const cordonMs = ms(t);
    if (r.status !== 0) throw new Error(`cordon check exited ${r.status}: ${r.stderr}${r.stdout.slice(0, 2000)}`);
    // What this check measured, from the audit it stored (the timed run printed the human verdict).
    const audit = JSON.parse(readFileSync(join(repo, '.cordon', 'audit.json'), 'utf8')) as { metrics: { files: number; added_lines: number; deleted_lines: number } };
    if (audit.metrics.files !== counts.paths || audit.metrics.added_lines !== counts.addedLines || audit.metrics.deleted_lines !== counts.deletedLines) {
      throw new Error(`cordon check measured ${JSON.stringify(audit.metrics)}, expected ${counts.paths} files, +${counts.addedLines} -${counts.deletedLines}`);
    }
    t = process.hrtime.bigint();
    for (const args of bare) git(...args);
    const gitMs = ms(t);
    t = process.hrtime.bigint();
    await check({ repo });
    const libraryMs = ms(t);
    t = process.hrtime.bigint();
    cordon('--version');
    const startupMs = ms(t);
    t = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0'], { env });
    const nodeMs = ms(t);
    if (round === 0) continue; // warm-up
    cordonTimes.push(cordonMs);
    gitTimes.push(gitMs);
    libraryTimes.push(libraryMs);
    startupTimes.push(startupMs);
    nodeTimes.push(nodeMs);
    rss.push(Number(readFileSync(rssFile, 'utf8')));
  }
  const c = median(cordonTimes);
  const g = median(gitTimes);
  console.log(`repository: ${FILES.toLocaleString('en')} tracked files; ${counts.modified} modified, ${counts.added} added, ${counts.deleted} deleted, ${counts.renamed} renamed (${counts.paths} changed paths)`);
  console.log(`cordon arm:                     ${armMs.toFixed(0)} ms (once)`);
  console.log(`cordon check (CLI, median of ${ROUNDS}): ${c.toFixed(0)} ms`);
  console.log(`bare git commands (sequential):  ${g.toFixed(0)} ms  (${bare.map((a) => `git ${a[0]}`).join(', ')})`);
  console.log(`ratio cordon/git:                ${(c / g).toFixed(2)}  (target <= 1.5)`);
  console.log(`cordon peak RSS:                 ${(Math.max(...rss) / 1024).toFixed(1)} MiB`);
  // Where the difference goes: the same audit in-process, and the CLI's fixed start-up cost.
  console.log(`  context: audit library in-process ${median(libraryTimes).toFixed(0)} ms (ratio ${(median(libraryTimes) / g).toFixed(2)}); node + oclif start-up (cordon --version) ${median(startupTimes).toFixed(0)} ms; node -e 0 ${median(nodeTimes).toFixed(0)} ms`);
  // Node 20 reads NODE_EXTRA_CA_CERTS when it starts: every Node process, cordon's included, pays for it.
  if (process.env.NODE_EXTRA_CA_CERTS) console.log(`  NODE_EXTRA_CA_CERTS is set: Node parses ${process.env.NODE_EXTRA_CA_CERTS} at every start (compare \`env -u NODE_EXTRA_CA_CERTS npm run bench:envelope\`)`);
}

await main();
