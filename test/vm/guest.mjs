// Runs inside the qemu guest (test/vm/machine.ts boots it): every `cordon control` case of the VM
// suite in one boot, against the built project on the read-only host share. Writes
// <share>/results.json after every case, which test/vm/control-vm.test.ts judges on the host.
//   node guest.mjs <repo root as the guest sees it> <writable share>
//
// Node starts slowly under TCG (5–15 s), so most cases call `controlRun`, the library call both
// routes of `cordon control run` make, with the real host and @cordon/cgroup-linux loaded once;
// the CLI runs twice: `cordon control probe --json` (overlapping the first cases) and the
// `cordon control run` that is SIGKILLed mid-call.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [repo, share] = process.argv.slice(2);
const bin = join(repo, 'packages/host/bin/run.cjs');
const CG = '/sys/fs/cgroup';
const CONTAINER = join(CG, 'cordon');
const data = '/tmp/data';
mkdirSync(data, { recursive: true });
writeFileSync(
  join(data, 'package.json'),
  JSON.stringify({ name: '@cordon/host', private: true, dependencies: {}, oclif: { schema: 1, plugins: [{ name: '@cordon/cgroup-linux', root: join(repo, 'plugins/cgroup-linux'), type: 'link' }] } }),
);
// A short stall window so the policy acts within the suite's time (the default is 5 s).
const env = { ...process.env, CORDON_DATA_DIR: data, CORDON_CACHE_DIR: '/tmp/cache', CORDON_CONTROL_STALL_WINDOW_MS: '1500', CORDON_CONTROL_POLL_MS: '100' };
const results = { cases: {}, started: uptime() };
const t0 = Date.now();
const log = (m) => console.log(`[guest +${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const save = () => writeFileSync(join(share, 'results.json'), JSON.stringify({ ...results, ended: uptime() }, null, 2));

function uptime() {
  return Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
}

/** Per-call cgroups currently under <root>/cordon. */
function runDirs() {
  try {
    return readdirSync(CONTAINER).filter((n) => n.startsWith('run-'));
  } catch {
    return [];
  }
}

/** Starts the cordon CLI; `done` resolves {code, signal, stdout, stderr}. */
function cordon(args) {
  const child = spawn('node', [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b) => (stdout += b));
  child.stderr.on('data', (b) => (stderr += b));
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(what, test, ms = 60_000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (test()) return true;
  log(`timed out waiting for ${what}`);
  return false;
}
const events = (dir) => readFileSync(join(CONTAINER, dir, 'cgroup.events'), 'utf8');

const { controlRun } = await import(join(repo, 'packages/host/dist/control/run.js'));
const { loadHostDirect } = await import(join(repo, 'packages/host/dist/bus/load-host.js'));

let host;
/** One `control run` through the library call; the note and verbose lines are captured. */
async function runCase(name, argv, hint) {
  log(`case ${name}: control run${hint ? ` --hint ${hint}` : ''} -- ${argv.join(' ')}`);
  let stderr = '';
  const outcome = await controlRun({ argv, ...(hint ? { hint } : {}), cwd: '/tmp', env, hooks: host.hooks, dataDir: data, log: host.log, verbose: true, stderr: { write: (t) => (stderr += t) } });
  results.cases[name] = { code: outcome.exitCode, stderr, record: outcome.record, leftover: runDirs() };
  log(`case ${name}: exit ${outcome.exitCode}; ${stderr.trim().split('\n').at(-1) ?? ''}`);
  save();
  return results.cases[name];
}

const ALLOC = ['dd', 'if=/dev/zero', 'of=/dev/null', 'bs=300M', 'count=1'];

try {
  // The probe through the CLI (oclif: the slowest start under TCG) overlaps the first cases.
  const probe = cordon(['control', 'probe', '--json']).done.then((r) => {
    results.cases.probe_json = { ...r, leftover: runDirs() };
    log(`case probe: exit ${r.code}`);
    save();
  });
  host = await loadHostDirect(env);

  // A 300 MB allocation under memory:low (2.5 % of ~1 GB): throttled, no swap; three times.
  for (const n of [1, 2, 3]) await runCase(`low_${n}`, ALLOC, 'memory:low');
  await runCase('max', ALLOC, 'memory:max');

  // OOM kill: the harness caps cordon's parent cgroup with memory.max.
  writeFileSync(join(CONTAINER, 'memory.max'), String(200 * 2 ** 20));
  await runCase('oom', ALLOC, 'memory:max');
  writeFileSync(join(CONTAINER, 'memory.max'), 'max');

  // Freeze: the harness freezes the call's cgroup for 1.5 s (the duration the record must show),
  // then thaws it; the call lasts until the harness says it has thawed it (a minute at most).
  {
    let dir;
    const spot = waitFor('the call cgroup', () => (dir = runDirs()[0]) !== undefined && /populated 1/.test(events(dir))).then(async () => {
      writeFileSync(join(CONTAINER, dir, 'cgroup.freeze'), '1');
      await waitFor('frozen', () => /frozen 1/.test(events(dir)));
      await sleep(1500);
      writeFileSync(join(CONTAINER, dir, 'cgroup.freeze'), '0');
      writeFileSync('/tmp/thawed', '');
    });
    await runCase('freeze', ['sh', '-c', 'i=0; until [ -e /tmp/thawed ] || [ $i -ge 1200 ]; do sleep 0.05; i=$((i+1)); done; echo done > /tmp/freeze.out']);
    await spot;
    results.cases.freeze.output = readFileSync('/tmp/freeze.out', 'utf8');
  }

  await probe;

  // SIGKILL: the CLI dies mid-call; its cgroup stays until the command ends, and the next run removes it.
  {
    // The command lasts until the harness has killed the CLI and releases it (a minute at most).
    log('case sigkill: cordon control run -- a command waiting for /tmp/release, then SIGKILL');
    const run = cordon(['control', 'run', '--', 'sh', '-c', 'i=0; until [ -e /tmp/release ] || [ $i -ge 1200 ]; do sleep 0.05; i=$((i+1)); done']);
    let dir;
    await waitFor('the call cgroup', () => (dir = runDirs()[0]) !== undefined && /populated 1/.test(events(dir)));
    const during = readFileSync(join(CONTAINER, dir, 'memory.high'), 'utf8').trim();
    run.child.kill('SIGKILL');
    // Released at once: the command holds the dead CLI's output pipes, so `done` waits for it.
    writeFileSync('/tmp/release', '');
    await run.done;
    await waitFor('the orphaned command to end', () => /populated 0/.test(events(dir)));
    const afterKill = runDirs();
    const next = await runCase('after_sigkill', ['true']);
    results.cases.sigkill = { killed: dir, memoryHigh: during, afterKill, afterNext: next.leftover };
    save();
  }

  // With swap (zram): memory above memory.high is swapped out and the call slows down.
  {
    writeFileSync('/sys/block/zram0/disksize', String(512 * 2 ** 20));
    results.swapon = await new Promise((resolve) => spawn('sh', ['-c', 'mkswap /dev/zram0 >/dev/null && swapon /dev/zram0'], { stdio: 'inherit' }).on('close', resolve));
    await runCase('swap_low', ['dd', 'if=/dev/urandom', 'of=/dev/null', 'bs=120M', 'count=1'], 'memory:low');
    const { swapProbe } = await import(join(repo, 'plugins/cgroup-linux/dist/probes.js'));
    results.swap_probe = swapProbe();
  }
} catch (error) {
  results.error = String(error?.stack ?? error);
  log(`error: ${results.error}`);
}
results.done = true;
save();
log('results written');
