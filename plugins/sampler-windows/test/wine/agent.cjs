// A stand-in Windows agent (run by the Windows node.exe under Wine): runs `cordon hook` through
// cmd.exe, as Codex and Gemini CLI do on Windows (Node's `shell: true` is `cmd.exe /d /s /c "…"`),
// for two sessions:
//   A: PreToolUse, 200 MB held and a CPU burst, PostToolUse, SessionEnd (the sampler stops on STOP),
//      each step once the sampler has recorded the one before (no fixed waits),
//   B: PreToolUse twice (one sampler for both), PostToolUse, then the agent exits (agent-exit).
// Usage: node.exe agent.cjs <cordon run.cjs> <work dir>; writes <work>/agent.jsonl.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const [, , hostRun, work] = process.argv;
const log = (o) => fs.appendFileSync(path.join(work, 'agent.jsonl'), JSON.stringify(o) + '\n');
const fixture = (name) => JSON.parse(fs.readFileSync(path.join(work, 'payloads', name), 'utf8'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const command = `"${process.execPath}" "${hostRun}" hook --agent claude-code`;

function hook(payload, session) {
  const r = spawnSync(command, { shell: true, input: JSON.stringify({ ...payload, session_id: session }), encoding: 'utf8', windowsHide: true });
  log({ hook: payload.hook_event_name, session, status: r.status, stdout: r.stdout, stderr: r.stderr });
}

/** The lines of `file` in the session directory of `session` (under <work>/data/runs), parsed; [] before it exists. */
function lines(session, file) {
  const runs = path.join(work, 'data', 'runs');
  try {
    const dir = fs.readdirSync(runs).find((d) => d.includes(session));
    return dir ? fs.readFileSync(path.join(runs, dir, file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  } catch {
    return [];
  }
}
const samples = (session) => lines(session, 'samples.jsonl');
const events = (session) => lines(session, 'sampler.jsonl');

/** Waits until `test()` holds (a minute at most: the test's assertions then say what is missing). */
async function until(what, test) {
  const end = Date.now() + 60_000;
  while (!test()) {
    if (Date.now() > end) {
      log({ timeout: what });
      return;
    }
    await sleep(50);
  }
}

async function main() {
  log({ agent: process.pid });
  const pre = fixture('claude-code.PreToolUse.Bash.json');
  const post = fixture('claude-code.PostToolUse.Bash.json');
  hook(pre, 'wine-session-a');
  await until('three samples of the tree at rest', () => samples('wine-session-a').length >= 3);
  const held = Buffer.alloc(200 * 1024 * 1024, 1);
  // A burst of 1.5 s of CPU time (not wall time: the machine may be busy).
  const cpu = process.cpuUsage();
  while ((({ user, system }) => user + system)(process.cpuUsage(cpu)) < 1_500_000);
  const burst = process.cpuUsage(cpu);
  log({ burstCpuMs: (burst.user + burst.system) / 1000 });
  // Three samples after the burst: its final counters are read, the 200 MB still held.
  const after = samples('wine-session-a').length;
  await until('three samples after the burst', () => samples('wine-session-a').length >= after + 3);
  hook(post, 'wine-session-a');
  hook(fixture('claude-code.SessionEnd.json'), 'wine-session-a');
  await until('the sampler of A to stop on STOP', () => events('wine-session-a').some((e) => e.event === 'stop'));
  hook(pre, 'wine-session-b');
  await until('the sampler of B to start', () => events('wine-session-b').some((e) => e.event === 'start'));
  hook(pre, 'wine-session-b');
  hook(post, 'wine-session-b');
  log({ exit: held.length });
}
main();
