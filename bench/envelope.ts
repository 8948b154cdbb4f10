/**
 * `npm run bench:envelope` (issues 2 and 19), two parts in one run:
 *
 * - small repositories (`CORDON_BENCH_SMALL`, default `20,1000` tracked files) with 3 changes (one
 *   file modified, one deleted, one added): `cordon check` side by side with the Python reference
 *   (`python3 -m cordon check`; `CORDON_BENCH_REFERENCE` names the reference's `src/` directory,
 *   the BEKO2210/SkillQuarry cordon says where it lives), the bare git commands and `node -e 0`.
 *   Here Node's start-up is most of cordon's time. Targets at 20 files: ≤ 1.0× the reference,
 *   ≤ 1.3× (`node -e 0` + the bare git commands). The floor rows are a Node process that only
 *   starts the same git commands at once, waits and writes one file, through `node:child_process`
 *   and through libuv's process and pipe handles as the check does: no check can cost less;
 * - `cordon check` on a repository of 100,000 tracked files (`CORDON_BENCH_FILES`) with 5 % of
 *   them (`CORDON_BENCH_CHANGES`) changed, added, deleted and renamed, side by side with the bare
 *   git commands the audit has to run. Target ≤ 1.2× at 100,000 files, ≤ 1.5× at 20,000
 *   (`CORDON_BENCH_FILES=20000`), where Node's start-up weighs more. Also cordon's peak RSS.
 *
 * Every cordon run happens twice per round, without `NODE_EXTRA_CA_CERTS` in its env (the target
 * row: users do not have it) and with it (bench/ca-env.ts); the reference and git are not Node.
 * `CORDON_BENCH_ONLY=small|big` runs one part.
 *
 * The repositories are built once and cached (`$CORDON_BENCH_CACHE`, else
 * `$CORDON_CACHE_DIR/bench`, else the system temp dir); every run resets them, arms them with the
 * built CLI (and the reference), applies the same changes, then alternates the contenders.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyChanges, buildBigRepo, trackedPath } from '../packages/host/test/envelope/big-repo.ts';
import { bashTimed } from './bash-timed.ts';
import { caFile, caModes } from './ca-env.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(ROOT, 'packages/host/bin/run.cjs');
const FILES = Number(process.env.CORDON_BENCH_FILES ?? 100_000);
const CHANGES = Number(process.env.CORDON_BENCH_CHANGES ?? Math.round(FILES / 20));
const ROUNDS = Number(process.env.CORDON_BENCH_ROUNDS ?? 11);
const SMALL = (process.env.CORDON_BENCH_SMALL ?? '20,1000').split(',').map(Number).filter((n) => n > 0);
const SMALL_ROUNDS = Number(process.env.CORDON_BENCH_SMALL_ROUNDS ?? 21);
const ONLY = process.env.CORDON_BENCH_ONLY;
const REFERENCE = process.env.CORDON_BENCH_REFERENCE;
/** cordon / bare git at FILES tracked files: Node's start-up is a larger share of a smaller repository. */
const TARGET_BIG = FILES <= 20_000 ? 1.5 : 1.2;
const TARGET_SMALL = 1.0;
/** cordon / (`node -e 0` + bare git) at 20 files: what cordon adds to the floor of any Node tool running the same git commands. */
const TARGET_FLOOR = 1.3;
const benchRoot = process.env.CORDON_BENCH_CACHE ? resolve(process.env.CORDON_BENCH_CACHE, '..') : join(process.env.CORDON_CACHE_DIR ?? join(tmpdir(), 'cordon-bench'));
const cacheRoot = process.env.CORDON_BENCH_CACHE ?? join(benchRoot, `envelope-${FILES}-v1`);
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
// This process runs the audit library too (the in-process row): it keeps its state, such as the
// envelope digests in the cache directory, in the bench's directories, not the user's.
Object.assign(process.env, cordonDirs, { GIT_CONFIG_NOSYSTEM: '1' });
const env = { ...process.env, ...cordonDirs, GIT_CONFIG_NOSYSTEM: '1', CORDON_BENCH_RSS: rssFile };
const modes = caModes(env);
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
/** Runs the built CLI in `cwd` (default the big repository) with `childEnv` (default: without the CA variable). */
const cordonIn = (cwd: string, args: string[], childEnv: NodeJS.ProcessEnv = modes[0]!.env): SpawnSyncReturns<string> =>
  spawnSync(process.execPath, ['--require', probe, BIN, ...args], { cwd, env: childEnv, encoding: 'utf8', maxBuffer: 1 << 30 });
const cordon = (...args: string[]) => cordonIn(repo, args);
/** The bare git commands an audit of `baseline` has to run. */
const bareGit = (baseline: string): string[][] => [
  ['rev-parse', '--show-toplevel', '--verify', 'HEAD'],
  ['diff', '--raw', '--numstat', '-z', '--no-abbrev', '--no-renames', '--no-ext-diff', '--no-textconv', baseline, '--'],
  ['ls-files', '-z', '-v'],
  ['ls-files', '-z', '--others', '--directory'],
];
const ARM_LIMITS = ['--allow', '**', '--max-files', '1000000', '--max-added-lines', '100000000', '--max-deleted-lines', '100000000', '--max-working-bytes', '100000000000', '--max-binary-files', '1000000'];

function ms(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e6;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The audit metrics a check stored in `<repo>/.cordon/audit.json` (cordon and the reference write the same keys). */
function storedMetrics(dir: string): { files: number; added_lines: number; deleted_lines: number } {
  return (JSON.parse(readFileSync(join(dir, '.cordon', 'audit.json'), 'utf8')) as { metrics: { files: number; added_lines: number; deleted_lines: number } }).metrics;
}

function expectMetrics(who: string, dir: string, expected: { paths: number; addedLines: number; deletedLines: number }): void {
  const m = storedMetrics(dir);
  if (m.files !== expected.paths || m.added_lines !== expected.addedLines || m.deleted_lines !== expected.deletedLines) {
    throw new Error(`${who} measured ${JSON.stringify(m)}, expected ${expected.paths} files, +${expected.addedLines} -${expected.deletedLines}`);
  }
}

/** The Python interpreter itself (a pyenv shim in front of it would add its own start-up). */
const PYTHON = REFERENCE ? execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim() : 'python3';

/** Wall and CPU (user + sys) ms of one timed command. */
interface Cost {
  wallMs: number;
  cpuMs: number;
}

/**
 * Runs the bash `script` (its arguments `args`) in `cwd` and returns its wall time
 * ($EPOCHREALTIME around it) and the CPU its children used (`times`), so neither includes this
 * process; the machine is shared, and CPU time is the steadier of the two. The script's own
 * output is discarded; a non-zero exit throws, naming `who`.
 */
function cost(who: string, script: string, args: string[], cwd: string, childEnv: NodeJS.ProcessEnv): Cost {
  const r = bashTimed(`{ ${script}; } >/dev/null 2>&1`, args, { cwd, env: childEnv });
  if (r.status !== 0) throw new Error(`${who} failed (exit ${r.status}) in ${cwd}`);
  return { wallMs: r.wallMs, cpuMs: r.cpuMs };
}

/** Times `fn` in ms; throws what `fn` throws. */
function timed(fn: () => void): number {
  const t = process.hrtime.bigint();
  fn();
  return ms(t);
}

const pad = (text: string, n: number) => text.padEnd(n);

/**
 * Writes, at `path`, the floor of any Node program that runs the git `commands`: it starts them
 * all at once, waits for their output and writes one file (the path in its first argument):
 * what a check has to do at the least. Returns `path`.
 */
function writeNodeFloor(path: string, commands: string[][]): string {
  writeFileSync(
    path,
    [
      "const { spawn } = require('node:child_process');",
      `const commands = ${JSON.stringify(commands)};`,
      'let left = commands.length;',
      'const sizes = [];',
      'for (const args of commands) {',
      "  const child = spawn('git', args, { stdio: ['ignore', 'pipe', 'ignore'] });",
      '  let n = 0;',
      "  child.stdout.on('data', (d) => (n += d.length));",
      "  child.on('close', (code) => { if (code !== 0) process.exitCode = 1; sizes.push(n); if (--left === 0) require('node:fs').writeFileSync(process.argv[2], JSON.stringify(sizes)); });",
      '}',
      '',
    ].join('\n'),
  );
  return path;
}

/**
 * {@link writeNodeFloor} through libuv's process and pipe handles (the `process_wrap`,
 * `pipe_wrap` and `stream_wrap` bindings, in this Node's calling convention), as the check starts
 * its git commands (src/process/direct-spawn.ts): the floor without `node:child_process` and the
 * stream and socket modules it loads. Returns `path`.
 */
function writeNodeHandleFloor(path: string, commands: string[][]): string {
  writeFileSync(
    path,
    [
      "const b = process.binding('process_wrap'), pw = process.binding('pipe_wrap'), sw = process.binding('stream_wrap');",
      `const commands = ${JSON.stringify(commands)};`,
      "const envPairs = Object.entries(process.env).map(([k, v]) => k + '=' + v);",
      'let left = commands.length;',
      'const sizes = [];',
      'for (const args of commands) {',
      '  const p = new b.Process(), out = new pw.Pipe(pw.constants.SOCKET);',
      "  const stdio = [{ type: 'ignore' }, { type: 'pipe', handle: out }, { type: 'ignore' }];",
      '  let n = 0, code = -1, ended = false;',
      "  const done = () => { if (code < 0 || !ended) return; if (code !== 0) process.exitCode = 1; sizes.push(n); if (--left === 0) require('node:fs').writeFileSync(process.argv[2], JSON.stringify(sizes)); };",
      '  p.onexit = (c) => { code = c; p.close(); done(); };',
      '  out.onread = () => { const r = sw.streamBaseState[sw.kReadBytesOrError]; if (r > 0) n += r; else if (r < 0 && !ended) { ended = true; out.close(); done(); } };',
      "  const argv = ['git', ...args];",
      "  b.constants ? p.spawn('git', argv, undefined, envPairs, stdio, 0, undefined, undefined) : p.spawn({ file: 'git', args: argv, envPairs, stdio });",
      '  out.readStart();',
      '}',
      '',
    ].join('\n'),
  );
  return path;
}

/**
 * The small-repository part: for each size, a cached repository (and a copy for the reference,
 * which keeps its state in the same `.cordon` directory), reset, armed by each tool, given the
 * same 3 changes (one file modified by a line, one deleted, one added), then SMALL_ROUNDS
 * alternating rounds after one warm-up.
 */
async function smallPart(): Promise<void> {
  if (!REFERENCE) console.log('Python reference: not measured (set CORDON_BENCH_REFERENCE to its src/ directory: BEKO2210/SkillQuarry skills/security/cordon/src, the BEKO2210/SkillQuarry cordon)');
  else if (!existsSync(join(REFERENCE, 'cordon', 'core.py'))) throw new Error(`CORDON_BENCH_REFERENCE=${REFERENCE}: no cordon/core.py there`);
  for (const files of SMALL) {
    const root = join(benchRoot, `envelope-small-${files}-v1`);
    const mine = join(root, 'cordon');
    const theirs = join(root, 'reference');
    if (!existsSync(join(root, 'complete'))) {
      rmSync(root, { recursive: true, force: true });
      await buildBigRepo(mine, { files });
      cpSync(mine, theirs, { recursive: true });
      writeFileSync(join(root, 'complete'), new Date().toISOString());
    }
    for (const dir of [mine, theirs]) {
      rmSync(join(dir, '.cordon'), { recursive: true, force: true });
      git(dir, 'reset', '-q', '--hard', 'main');
      git(dir, 'clean', '-qfdx');
    }
    await new Promise((r) => setTimeout(r, 1100));
    for (const dir of [mine, theirs]) git(dir, 'update-index', '-q', '--refresh');
    const armed = cordonIn(mine, ['arm', 'bench', ...ARM_LIMITS, '--json']);
    if (armed.status !== 0) throw new Error(`cordon arm failed (${armed.status}): ${armed.stderr}`);
    const baseline = (JSON.parse(armed.stdout) as { baseline: string }).baseline;
    if (REFERENCE) {
      const r = spawnSync('python3', ['-m', 'cordon', '--repo', theirs, 'arm', 'bench', ...ARM_LIMITS], { cwd: theirs, env: { ...env, PYTHONPATH: REFERENCE }, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`reference arm failed (${r.status}): ${r.stderr}`);
    }
    // One modified (+1 line), one deleted (-3 lines), one added (+1 line): 3 changed paths.
    for (const dir of [mine, theirs]) {
      appendFileSync(join(dir, trackedPath(0)), 'appended\n');
      rmSync(join(dir, trackedPath(1)));
      writeFileSync(join(dir, 'new-file.txt'), 'new file\n');
    }
    const expected = { paths: 3, addedLines: 2, deletedLines: 3 };
    const gitScript = bareGit(baseline).map((args) => ['git', ...args].join(' ')).join(' && ');
    const floorScript = writeNodeFloor(join(root, 'node-floor.cjs'), bareGit(baseline));
    const handleFloorScript = writeNodeHandleFloor(join(root, 'node-floor-handle.cjs'), bareGit(baseline));
    const times = new Map<string, Cost[]>();
    const add = (name: string, x: Cost) => (times.get(name) ?? times.set(name, []).get(name)!).push(x);
    for (let round = 0; round <= SMALL_ROUNDS; round++) {
      const row: Array<[string, Cost]> = [];
      for (const mode of modes) {
        row.push([`cordon ${mode.label}`, cost('cordon check', '"$@"', [process.execPath, BIN, 'check'], mine, mode.env)]);
        expectMetrics('cordon check', mine, expected);
        row.push([`node -e 0 ${mode.label}`, cost('node -e 0', '"$@"', [process.execPath, '-e', '0'], mine, mode.env)]);
        row.push([`floor ${mode.label}`, cost('node floor', '"$@"', [process.execPath, floorScript, join(root, 'node-floor.json')], mine, mode.env)]);
        row.push([`handle floor ${mode.label}`, cost('node floor (handle)', '"$@"', [process.execPath, handleFloorScript, join(root, 'node-floor.json')], mine, mode.env)]);
      }
      if (REFERENCE) {
        row.push(['reference', cost('reference check', '"$@"', [PYTHON, '-m', 'cordon', '--repo', theirs, 'check'], theirs, { ...env, PYTHONPATH: REFERENCE })]);
        expectMetrics('reference check', theirs, expected);
      }
      row.push(['git', cost('bare git', gitScript, [], mine, env)]);
      if (round > 0) for (const [name, x] of row) add(name, x);
    }
    const wall = (name: string) => median((times.get(name) ?? []).map((c) => c.wallMs));
    const cpu = (name: string) => median((times.get(name) ?? []).map((c) => c.cpuMs));
    const both = (name: string) => `${wall(name).toFixed(0)} ms wall, ${cpu(name).toFixed(0)} ms CPU`;
    console.log(`\nsmall repository: ${files.toLocaleString('en')} tracked files, 3 changes (1 modified, 1 deleted, 1 added); medians of ${SMALL_ROUNDS} alternating rounds`);
    console.log(`  Python reference check (${PYTHON}): ${REFERENCE ? both('reference') : 'not measured'}; bare git commands ${both('git')}`);
    for (const mode of modes) {
      const name = `cordon ${mode.label}`;
      const ratio = wall(name) / wall('reference');
      const verdict = !REFERENCE ? '' : mode.target ? (files <= 20 ? ` (target ≤ ${TARGET_SMALL}: ${ratio <= TARGET_SMALL ? 'met' : 'NOT met'})` : '') : ' (context)';
      const vsRef = REFERENCE ? `ratio to the reference ${ratio.toFixed(2)} wall, ${(cpu(name) / cpu('reference')).toFixed(2)} CPU${verdict}` : 'ratio to the reference: not measured';
      console.log(`  ${pad(mode.label, 15)} cordon check ${both(name)} (node -e 0 ${both(`node -e 0 ${mode.label}`)}); ${vsRef}; ratio to git ${(wall(name) / wall('git')).toFixed(2)} wall`);
      // The floor: a Node process that only ran the same git commands (medians of the same rounds).
      const floor = wall(name) / (wall(`node -e 0 ${mode.label}`) + wall('git'));
      const floorCpu = cpu(name) / (cpu(`node -e 0 ${mode.label}`) + cpu('git'));
      const floorVerdict = mode.target ? (files <= 20 ? ` (target ≤ ${TARGET_FLOOR}: ${floor <= TARGET_FLOOR ? 'met' : 'NOT met'})` : '') : ' (context)';
      console.log(`  ${pad('', 15)} ratio to node -e 0 + git ${floor.toFixed(2)} wall${floorVerdict}, ${floorCpu.toFixed(2)} CPU`);
      // Context for the target: the least a Node program running these commands costs here.
      const viaChildProcess = `floor ${mode.label}`;
      const least = `handle floor ${mode.label}`;
      const base = wall(`node -e 0 ${mode.label}`) + wall('git');
      console.log(`  ${pad('', 15)} a Node process that only runs the same git commands at once and writes one file: through node:child_process ${both(viaChildProcess)}, ${(wall(viaChildProcess) / base).toFixed(2)}× node -e 0 + git`);
      console.log(`  ${pad('', 15)} the same through libuv's process and pipe handles, as the check: ${both(least)}, ${(wall(least) / base).toFixed(2)}× node -e 0 + git (the floor); cordon check adds ${(wall(name) - wall(least)).toFixed(0)} ms wall, ${(cpu(name) - cpu(least)).toFixed(0)} ms CPU to it`);
    }
  }
}

/** The 100,000-file part. */
async function bigPart(): Promise<void> {
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
  git(repo, 'reset', '-q', '--hard', 'main');
  git(repo, 'clean', '-qfd');
  await new Promise((r) => setTimeout(r, 1100));
  git(repo, 'update-index', '-q', '--refresh');

  const armStart = process.hrtime.bigint();
  const armed = cordon('arm', 'bench', ...ARM_LIMITS, '--json');
  if (armed.status !== 0) throw new Error(`cordon arm failed (${armed.status}): ${armed.stderr}`);
  const armMs = ms(armStart);
  const baseline = (JSON.parse(armed.stdout) as { baseline: string }).baseline;
  const counts = applyChanges(repo, { files: FILES }, CHANGES);

  const bare = bareGit(baseline);
  const { check } = (await import(join(ROOT, 'packages/host/dist/envelope/check.js'))) as typeof import('../packages/host/src/envelope/check.js');
  const gitScript = bare.map((args) => ['git', ...args].join(' ')).join(' && ');
  const floorScript = writeNodeFloor(join(cacheRoot, 'node-floor.cjs'), bare);
  const handleFloorScript = writeNodeHandleFloor(join(cacheRoot, 'node-floor-handle.cjs'), bare);
  const times = new Map<string, Cost[]>();
  const add = (name: string, x: Cost) => (times.get(name) ?? times.set(name, []).get(name)!).push(x);
  const rss: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const row: Array<[string, Cost]> = [];
    for (const mode of modes) {
      row.push([`check ${mode.label}`, cost('cordon check', '"$@"', [process.execPath, '--require', probe, BIN, 'check'], repo, mode.env)]);
      // What this check measured, from the audit it stored (the timed run printed the human verdict).
      expectMetrics('cordon check', repo, counts);
      if (mode.target && round > 0) rss.push(Number(readFileSync(rssFile, 'utf8')));
    }
    row.push(['git', cost('bare git', gitScript, [], repo, env)]);
    const t = process.hrtime.bigint();
    await check({ repo });
    row.push(['library', { wallMs: ms(t), cpuMs: NaN }]);
    for (const mode of modes) {
      row.push([`version ${mode.label}`, cost('cordon --version', '"$@"', [process.execPath, BIN, '--version'], repo, mode.env)]);
      row.push([`node ${mode.label}`, cost('node -e 0', '"$@"', [process.execPath, '-e', '0'], repo, mode.env)]);
      row.push([`floor ${mode.label}`, cost('node floor', '"$@"', [process.execPath, floorScript, join(cacheRoot, 'node-floor.json')], repo, mode.env)]);
      row.push([`handle floor ${mode.label}`, cost('node floor (handle)', '"$@"', [process.execPath, handleFloorScript, join(cacheRoot, 'node-floor.json')], repo, mode.env)]);
    }
    if (round > 0) for (const [name, x] of row) add(name, x); // round 0 is the warm-up
  }
  const wall = (name: string) => median(times.get(name)!.map((c) => c.wallMs));
  const cpu = (name: string) => median(times.get(name)!.map((c) => c.cpuMs));
  const g = wall('git');
  console.log(`\nrepository: ${FILES.toLocaleString('en')} tracked files; ${counts.modified} modified, ${counts.added} added, ${counts.deleted} deleted, ${counts.renamed} renamed (${counts.paths} changed paths); medians of ${ROUNDS} alternating rounds`);
  console.log(`cordon arm:                     ${armMs.toFixed(0)} ms (once)`);
  console.log(`bare git commands (sequential):  ${g.toFixed(0)} ms wall, ${cpu('git').toFixed(0)} ms CPU  (${bare.map((a) => `git ${a[0]}`).join(', ')})`);
  for (const mode of modes) {
    const c = wall(`check ${mode.label}`);
    const verdict = mode.target ? (c / g <= TARGET_BIG ? 'met' : 'NOT met') : 'context';
    console.log(`${pad(mode.label, 15)} cordon check (CLI) ${c.toFixed(0)} ms wall, ${cpu(`check ${mode.label}`).toFixed(0)} ms CPU (git included); ratio cordon/git ${(c / g).toFixed(2)} wall (target ≤ ${TARGET_BIG}: ${verdict}), ${(cpu(`check ${mode.label}`) / cpu('git')).toFixed(2)} CPU; cordon --version ${wall(`version ${mode.label}`).toFixed(0)} ms, node -e 0 ${wall(`node ${mode.label}`).toFixed(0)} ms wall`);
    const viaChildProcess = `floor ${mode.label}`;
    const floor = `handle floor ${mode.label}`;
    console.log(`${pad('', 15)} a Node process that only runs the same git commands at once and writes one file: through node:child_process ${wall(viaChildProcess).toFixed(0)} ms wall, ${cpu(viaChildProcess).toFixed(0)} ms CPU, ${(wall(viaChildProcess) / g).toFixed(2)}× git`);
    console.log(`${pad('', 15)} the same through libuv's process and pipe handles, as the check: ${wall(floor).toFixed(0)} ms wall, ${cpu(floor).toFixed(0)} ms CPU, ${(wall(floor) / g).toFixed(2)}× git (the floor); cordon check adds ${(c - wall(floor)).toFixed(0)} ms wall to it`);
  }
  console.log(`cordon peak RSS:                 ${(Math.max(...rss) / 1024).toFixed(1)} MiB`);
  // Where the difference goes: the same audit in-process, without any process start-up.
  console.log(`  context: audit library in-process ${wall('library').toFixed(0)} ms (ratio ${(wall('library') / g).toFixed(2)})`);
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'packages/host/dist/commands/check.js'))) {
    console.log('building cordon (npm run build) …');
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  }
  mkdirSync(benchRoot, { recursive: true });
  console.log(`cordon check benches, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs; every cordon run with and without NODE_EXTRA_CA_CERTS (${caFile() ?? 'no CA file here'}) in its env, the row without it is the target row`);
  if (ONLY !== 'big') {
    mkdirSync(cacheRoot, { recursive: true });
    writeCordonSetup();
    await smallPart();
  }
  if (ONLY !== 'small') await bigPart();
}

await main();
