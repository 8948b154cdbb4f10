import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InterruptTrap, signalExitCode } from '../../../src/envelope/attempt/signals.js';
import { endTree, superviseAgent, type SuperviseOptions } from '../../../src/envelope/attempt/supervise.js';
import { parseStat, ProcessTree } from '../../../src/envelope/attempt/tree.js';
import { waitFor } from '../../../../../test/support/wait.js';

// The supervisor with small Node scripts standing in for an agent (the real agents run in
// test/e2e/runner). Each script can start a "tool": a grandchild in a session of its own, the
// way Claude Code runs Bash, which a process-group kill alone would orphan.

let dir: string;
let trap: InterruptTrap;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-supervise-'));
  trap = new InterruptTrap();
});
afterEach(() => {
  trap.dispose();
  for (const pid of pidsIn(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function pidsIn(d: string): number[] {
  const file = join(d, 'pids');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return stat !== undefined && stat.state !== 'Z';
}

/** A script that records its pid, optionally starts a setsid "tool" that lives 60 s and records the tool's pid (once spawned: it exists), then runs `body`. */
function agentScript(body: string, options: { tool?: boolean } = {}): string {
  const file = join(dir, 'agent.cjs');
  writeFileSync(
    file,
    `const fs = require('node:fs'); const { spawn } = require('node:child_process');
fs.appendFileSync(${JSON.stringify(join(dir, 'pids'))}, process.pid + '\\n');
${options.tool ? `const tool = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { detached: true, stdio: 'ignore' }); tool.unref(); fs.appendFileSync(${JSON.stringify(join(dir, 'pids'))}, tool.pid + '\\n');` : ''}
${body}
`,
  );
  return file;
}

function options(script: string, over: Partial<SuperviseOptions> = {}): SuperviseOptions {
  return { argv: [process.execPath, script], cwd: dir, env: process.env, timeoutMs: 30_000, outputCap: 1 << 20, tree: new ProcessTree(process.pid), trap, ...over };
}

async function waitForPids(n: number): Promise<number[]> {
  return waitFor(() => (pidsIn(dir).length >= n ? pidsIn(dir) : undefined), { what: `${n} pids in ${dir}/pids` });
}

/** Waits until the supervisor's `tree` holds the agent and its tool (its scans run every 250 ms). */
async function treeHoldsAgentAndTool(tree: ProcessTree): Promise<void> {
  const pids = await waitForPids(2);
  await waitFor(() => pids.every((pid) => tree.alive().some((m) => m.pid === pid)), { what: `the supervisor's tree to hold the agent and its tool (${pids.join(', ')})` });
}

describe('parseStat', () => {
  it('counts fields from the last parenthesis, so a command name with spaces and parentheses parses', () => {
    expect(parseStat('4242 (a) (b c) S 1 4242 4242 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 987654 0 0')).toEqual({ state: 'S', ppid: 1, pgid: 4242, start: 987654 });
    expect(parseStat('garbage')).toBeUndefined();
  });
});

describe('superviseAgent', () => {
  it('delivers the prompt on stdin and captures stdout, stderr and the exit code', async () => {
    const script = agentScript("let s=''; process.stdin.on('data', d => s += d).on('end', () => { process.stdout.write('got:' + s); process.stderr.write('warn'); process.exit(3); });");
    const exit = await superviseAgent(options(script, { stdin: 'the prompt text' }));
    expect(exit).toMatchObject({ started: true, startError: null, exitCode: 3, stdout: 'got:the prompt text', stderr: 'warn', timedOut: false, leftovers: 0 });
  });

  it('reports the pid once spawned', async () => {
    let seen: number | undefined;
    await superviseAgent(options(agentScript(''), { onSpawn: (pid) => (seen = pid) }));
    expect(seen).toBe(pidsIn(dir)[0]);
  });

  it('a binary that cannot start resolves with the reason instead of throwing', async () => {
    const exit = await superviseAgent(options('', { argv: [join(dir, 'no-such-agent')] }));
    expect(exit.started).toBe(false);
    expect(exit.startError).toBe(`cannot start '${join(dir, 'no-such-agent')}': no such file`);
  });

  it('timeout: the agent and its tool in another session are both ended', async () => {
    // Shells, not Node: both must have started and written their pids before the 5 s time-out,
    // and a loaded machine can take longer than that to start two Nodes; a shell takes milliseconds.
    const pidFile = join(dir, 'pids');
    const tool = `setsid sh -c 'echo $$ >> "$0"; exec sleep 60' '${pidFile}'`;
    const exit = await superviseAgent(options('', { argv: ['sh', '-c', `echo $$ >> '${pidFile}'; ${tool} & wait`], timeoutMs: 5000 }));
    expect(exit.timedOut).toBe(true);
    expect(exit.exitCode).toBeNull();
    const pids = pidsIn(dir);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(false);
  });

  it('an agent that ignores SIGTERM gets SIGKILL after the grace', async () => {
    // A shell agent: it ignores TERM from its first command, milliseconds after it starts, well
    // inside the 2 s before the time-out (a Node agent would need its whole start-up first).
    const pids = join(dir, 'pids');
    const exit = await superviseAgent(options('', { argv: ['sh', '-c', `trap '' TERM; echo $$ >> '${pids}'; while :; do sleep 1; done`], timeoutMs: 2000 }));
    expect(exit).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    expect(alive(pidsIn(dir)[0]!)).toBe(false);
  });

  it('output past the cap ends the attempt', async () => {
    const exit = await superviseAgent(options(agentScript("process.stdout.write('x'.repeat(5000)); setTimeout(() => {}, 60000);"), { outputCap: 64 }));
    expect(exit.outputLimited).toBe(true);
    expect(exit.stdout.length).toBeLessThanOrEqual(64);
  });

  it('a tool the agent left running after it exited is killed and counted', async () => {
    // The agent exits once the supervisor has seen its tool (the test then writes `go`).
    const go = join(dir, 'go');
    const tree = new ProcessTree(process.pid);
    const running = superviseAgent(options(agentScript(`setInterval(() => fs.existsSync(${JSON.stringify(go)}) && process.exit(0), 20);`, { tool: true }), { tree }));
    await treeHoldsAgentAndTool(tree);
    writeFileSync(go, '');
    const exit = await running;
    expect(exit.exitCode).toBe(0);
    expect(exit.leftovers).toBe(1);
    for (const pid of pidsIn(dir)) expect(alive(pid)).toBe(false);
  });

  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('%s to cordon ends the whole tree and reports the interruption', async (signal) => {
    const tree = new ProcessTree(process.pid);
    const running = superviseAgent(options(agentScript('setTimeout(() => {}, 60000);', { tool: true }), { tree }));
    await treeHoldsAgentAndTool(tree);
    process.kill(process.pid, signal);
    const exit = await running;
    expect(exit.interrupted).toBe(true);
    expect(trap.signal).toBe(signal);
    for (const pid of pidsIn(dir)) expect(alive(pid), `pid ${pid}`).toBe(false);
  });

  it('exit codes of an interrupted attempt are 128 + the signal number', () => {
    expect(signalExitCode('SIGINT')).toBe(130);
    expect(signalExitCode('SIGTERM')).toBe(143);
    expect(signalExitCode('SIGHUP')).toBe(129);
  });

  it('a signal that came before the agent could start: nothing runs', async () => {
    process.kill(process.pid, 'SIGTERM');
    // Once the trap has heard it: its handler runs at a later turn of the event loop.
    await waitFor(() => trap.signal, { what: 'the trap to hear SIGTERM' });
    const exit = await superviseAgent(options(agentScript('')));
    expect(exit).toMatchObject({ started: false, interrupted: true });
    expect(pidsIn(dir)).toEqual([]);
  });
});

describe('ProcessTree and endTree', () => {
  it('keeps a re-parented grandchild as a member and ends it', async () => {
    // The parent exits once the scan below has found both (the test then writes `go`).
    const go = join(dir, 'go');
    const script = agentScript(`setInterval(() => fs.existsSync(${JSON.stringify(go)}) && process.exit(0), 20);`, { tool: true });
    const child = spawn(process.execPath, [script], { stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    const tree = new ProcessTree(process.pid);
    const pids = await waitForPids(2);
    tree.scan();
    expect(tree.alive().map((m) => m.pid).sort()).toEqual([...pids].sort());
    writeFileSync(go, '');
    await exited;
    tree.scan(); // the tool's parent is gone; it is still ours
    expect(tree.alive().map((m) => m.pid)).toEqual([pids[1]]);
    expect(await endTree(tree)).toBe(1);
    expect(alive(pids[1]!)).toBe(false);
    expect(tree.alive()).toEqual([]);
  });
});
