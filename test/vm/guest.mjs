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
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

/** Runs a shell script (busybox sh) with the cordon environment; `done` resolves {code, signal, stdout, stderr}. */
function shell(script) {
  const child = spawn('sh', ['-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b) => (stdout += b));
  child.stderr.on('data', (b) => (stderr += b));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}
/** The last line of `text` that parses as JSON, or undefined. */
function lastJson(text) {
  for (const line of text.trim().split('\n').reverse()) {
    try {
      return JSON.parse(line);
    } catch {
      // not the record
    }
  }
  return undefined;
}
/** Every cgroup directory below `dir` (relative paths). */
function cgroupsBelow(dir, prefix = '') {
  let out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) out = [...out, `${prefix}${e.name}`, ...cgroupsBelow(join(dir, e.name), `${prefix}${e.name}/`)];
  return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(what, test, ms = 60_000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (test()) return true;
  log(`timed out waiting for ${what}`);
  return false;
}
const events = (dir) => readFileSync(join(CONTAINER, dir, 'cgroup.events'), 'utf8');

const { controlRun } = await import(join(repo, 'packages/host/dist/control/run.js'));
const { parseKeyed, writeValue } = await import(join(repo, 'plugins/cgroup-linux/dist/cgroup/files.js'));
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

  // Leaked cgroups and silent kills: a leftover run cgroup with sub-cgroups of its own
  // (its owner pid 999999 never existed) is removed by the next run; a command that makes
  // sub-cgroups under its own cgroup, puts a process in one and leaves another in the background
  // with nohup gets its whole subtree removed, and the record and note name what was ended.
  {
    const stale = join(CONTAINER, 'run-999999-1-stale0');
    mkdirSync(join(stale, 'inner', 'deeper'), { recursive: true });
    const script = [
      'd=/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)',
      'mkdir -p $d/inner/deeper',
      'sh -c "echo \\$\\$ > $d/inner/deeper/cgroup.procs && exec sleep 300" &',
      // busybox has no nohup applet: the host's coreutils one, through the read-only host root.
      '/hostroot/usr/bin/nohup sleep 301 >/dev/null 2>&1 &',
      // Wait until both have exec'd sleep (argv, not ps's column, which also shows nohup's own
      // "nohup sleep 301" and the shell before its exec): the record names processes as they are.
      'running() { for f in /proc/[0-9]*/cmdline; do tr "\\0" " " 2>/dev/null < $f; echo; done | grep -q "^$1 \\$"; }',
      'until running "sleep 300" && running "sleep 301"; do sleep 0.1; done',
      'echo made',
    ].join('\n');
    await runCase('nested', ['sh', '-c', script]);
    results.cases.nested.staleGone = !existsSync(stale);
    results.cases.nested.below = cgroupsBelow(CONTAINER);
    save();
  }

  // No PSI: the harness switches PSI off for the call's cgroup as soon as it appears
  // (cgroup.pressure 0 hides memory.pressure, Linux 6.1+), as `psi=0` on the kernel command line
  // would for every cgroup; the throttled call still gets the note and the escalation, from
  // memory.events.
  {
    let dir;
    const hide = waitFor('the call cgroup', () => (dir = runDirs()[0]) !== undefined).then(() => {
      results.psiHideError = writeValue(join(CONTAINER, dir, 'cgroup.pressure'), '0');
      results.psiReadableAfter = existsSync(join(CONTAINER, dir, 'memory.pressure'));
    });
    await runCase('nopsi', ALLOC, 'memory:low');
    await hide;
    save();
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

  // Root calls stay under the agent's limits: an "agent" cgroup with memory.max=150M
  // stands in for `systemd-run -p MemoryMax=150M`; 250 MB is OOM-killed there without cordon and
  // with `cordon control run` as root from inside it.
  {
    const AGENT = join(CG, 'agent');
    mkdirSync(AGENT);
    writeFileSync(join(AGENT, 'memory.max'), String(150 * 2 ** 20));
    const dd = 'dd if=/dev/zero of=/dev/null bs=250M count=1';
    log('case agent: 250 MB in a memory.max=150M cgroup, without and with cordon');
    const without = await shell(`echo $$ > ${AGENT}/cgroup.procs && exec ${dd}`);
    const withCordon = await shell(`echo $$ > ${AGENT}/cgroup.procs && exec node ${bin} control run --json --hint memory:max -- ${dd}`);
    results.cases.agent = { without, with: { ...withCordon, record: lastJson(withCordon.stdout) }, below: cgroupsBelow(AGENT) };
    log(`case agent: without cordon exit ${without.code}, with cordon exit ${withCordon.code}`);
    save();
  }

  // Container limits: a cgroup namespace whose root carries memory.max=200M, cgroup2
  // mounted inside (util-linux unshare from the host; busybox's has no -C): ram_bytes, and so
  // every tier, is the container's limit, not the host's MemTotal (the probe's tier table uses
  // the same effectiveLimit).
  {
    const CTR = join(CG, 'ctr');
    mkdirSync(CTR);
    writeFileSync(join(CTR, 'memory.max'), String(200 * 2 ** 20));
    log('case container: control run in a cgroup namespace with memory.max=200M');
    const inner = [
      'umount /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup || exit 99',
      'grep cgroup2 /proc/self/mountinfo > /tmp/ctr-mountinfo; cat /proc/self/cgroup > /tmp/ctr-cgroup',
      `exec node ${bin} control run --json --hint memory:high -- true`,
    ].join('; ');
    const run = await shell(`echo $$ > ${CTR}/cgroup.procs && exec /hostroot/usr/bin/unshare -C -m sh -c '${inner}'`);
    const read = (f) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
    results.cases.container = { ...run, record: lastJson(run.stdout), mountinfo: read('/tmp/ctr-mountinfo'), cgroup: read('/tmp/ctr-cgroup'), below: cgroupsBelow(CTR) };
    log(`case container: exit ${run.code}`);
    save();
  }

  // What memory.high does without swap and without cordon's escalation (docs/control.md):
  // a cgroup with memory.high=24M; one 300 MB read into a fresh buffer (dd bs=300M), then 1 MB
  // writes to tmpfs (shmem, which cannot be reclaimed without swap) for an 8 s window.
  {
    const M = join(CG, 'measure');
    mkdirSync(M);
    writeFileSync(join(M, 'memory.high'), String(24 * 2 ** 20));
    const measureOne = async (script, windowMs) => {
      const t = performance.now();
      const child = spawn('sh', ['-c', `echo $$ > ${M}/cgroup.procs && exec ${script}`], { stdio: 'ignore' });
      const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
      const timeline = [];
      let exit;
      const stop = setTimeout(() => child.kill('SIGKILL'), windowMs);
      exited.then((e) => (exit = e));
      while (exit === undefined) {
        timeline.push([Math.round(performance.now() - t), Number(readFileSync(join(M, 'memory.current'), 'utf8')), parseKeyed(readFileSync(join(M, 'memory.events'), 'utf8')).high]);
        await sleep(500);
      }
      clearTimeout(stop);
      const full = Number(/^full .*total=(\d+)/m.exec(readFileSync(join(M, 'memory.pressure'), 'utf8'))[1]);
      return { ...exit, wallMs: Math.round(performance.now() - t), high: parseKeyed(readFileSync(join(M, 'memory.events'), 'utf8')).high, fullStallMs: Math.round(full / 1000), timeline };
    };
    log('measure: dd bs=300M count=1 under memory.high=24M, no cordon');
    const dd = await measureOne('dd if=/dev/zero of=/dev/null bs=300M count=1', 120_000);
    const before = parseKeyed(readFileSync(join(M, 'memory.events'), 'utf8')).high;
    log('measure: 1 MB writes to tmpfs under memory.high=24M for 8 s');
    const tmpfs = await measureOne('dd if=/dev/zero of=/tmp/fill bs=1M count=300', 8_000);
    const written = existsSync('/tmp/fill') ? statSync('/tmp/fill').size : 0;
    await shell('rm -f /tmp/fill');
    results.measure = { dd, tmpfs: { ...tmpfs, high: tmpfs.high - before, written } };
    log(`measure: dd ${JSON.stringify({ ...dd, timeline: undefined })}; tmpfs wrote ${written} bytes in ${tmpfs.wallMs} ms`);
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
