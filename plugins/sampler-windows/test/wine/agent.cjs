// A stand-in Windows agent (run by the Windows node.exe under Wine): runs `cordon hook` through
// cmd.exe, as Codex and Gemini CLI do on Windows (Node's `shell: true` is `cmd.exe /d /s /c "…"`),
// for two sessions:
//   A: PreToolUse, 200 MB held and a CPU burst, PostToolUse, SessionEnd (the sampler stops on STOP),
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

async function main() {
  log({ agent: process.pid });
  const pre = fixture('claude-code.PreToolUse.Bash.json');
  const post = fixture('claude-code.PostToolUse.Bash.json');
  hook(pre, 'wine-session-a');
  await sleep(1500); // the tree at rest
  const held = Buffer.alloc(200 * 1024 * 1024, 1);
  const until = Date.now() + 1500;
  while (Date.now() < until);
  await sleep(1500);
  hook(post, 'wine-session-a');
  hook(fixture('claude-code.SessionEnd.json'), 'wine-session-a');
  await sleep(2000); // the sampler sees STOP at its next tick, well before the agent exits
  hook(pre, 'wine-session-b');
  await sleep(1000);
  hook(pre, 'wine-session-b');
  await sleep(1000);
  hook(post, 'wine-session-b');
  log({ exit: held.length });
}
main();
