import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { CORDON_BIN } from '../../../../test/support/cli.js';
import { hookPayload } from '../../../../test/support/fixtures.js';
import { killGroup, samplerProcesses } from '../../../../test/support/sampler.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';

// Real sessions for the `cordon top` suites: a stand-in agent process that runs `cordon hook` as
// its own child, as an agent does, so the hook finds it by the same /proc ancestry walk it uses
// for a real agent (no CLAUDE_PID), records its pid in the markers and starts the real sampler
// on it. Payloads are the captured fixtures (test/fixtures/hook-payloads) with a session id,
// a cwd and a command patched in.

/** The stand-in agent's program: optionally holds `mb` MiB of touched memory, runs each hook it is sent, answers with the exit code. */
const AGENT_PROGRAM = `
const { spawn } = require('node:child_process');
const held = Buffer.alloc(Number(process.argv[1]) * 1048576, 1);
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const r = JSON.parse(line);
  const child = spawn(process.execPath, [r.bin, 'hook', '--agent', r.agent], { env: r.env, stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.end(r.input);
  child.on('close', (code) => process.stdout.write(JSON.stringify({ id: r.id, code, held: held.length }) + '\\n'));
});
setInterval(() => {}, 1e6);
`;

/** Which fixture file each dialect's events come from. */
const FIXTURES: Record<string, { prefix: string; start: string; end: string; sessionStart: string; sessionEnd: string; turnEnd: string }> = {
  'claude-code': { prefix: 'claude-code', start: 'PreToolUse.Bash', end: 'PostToolUse.Bash', sessionStart: 'SessionStart', sessionEnd: 'SessionEnd', turnEnd: 'Stop' },
  codex: { prefix: 'codex', start: 'PreToolUse.Bash', end: 'PostToolUse.Bash', sessionStart: 'SessionStart', sessionEnd: 'SessionEnd', turnEnd: 'Stop' },
  gemini: { prefix: 'gemini-cli', start: 'BeforeTool.run_shell_command', end: 'AfterTool.run_shell_command', sessionStart: 'SessionStart', sessionEnd: 'SessionEnd', turnEnd: 'AfterAgent' },
};

/** A stand-in agent with its session. */
export interface FakeSession {
  readonly agent: string;
  readonly sessionId: string;
  readonly pid: number;
  /** The session's directory under the data dir. */
  readonly dir: string;
  /** Runs one hook event from the fixtures through the real `cordon hook`, as this agent's child; resolves with its exit code. */
  event(kind: 'start' | 'end' | 'sessionStart' | 'sessionEnd' | 'turnEnd', patch?: { command?: string; callId?: string; cwd?: string }): Promise<number>;
  /** SIGKILLs the agent (its process group) and waits until it is gone. */
  kill(): void;
}

/**
 * Starts a stand-in agent of dialect `agent` for session `sessionId`, its hooks run with `env`
 * (a sandbox's, with the dialect plugins linked).
 * @param heldMb memory the agent holds, MiB (tells sessions apart when sorting by memory).
 */
export function startFakeSession(options: { agent: 'claude-code' | 'codex' | 'gemini'; sessionId: string; env: NodeJS.ProcessEnv; dataDir: string; cwd: string; heldMb?: number }): FakeSession {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['-e', AGENT_PROGRAM, String(options.heldMb ?? 0)], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map<number, (code: number) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const { id, code } = JSON.parse(line) as { id: number; code: number };
    waiting.get(id)?.(code);
    waiting.delete(id);
  });
  // An agent that died answers nothing more: its pending events end with -1 and its stderr.
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  child.on('exit', () => {
    for (const done of waiting.values()) done(-1);
    waiting.clear();
    if (stderr) console.error(`stand-in agent ${options.sessionId}: ${stderr}`);
  });
  const fixtures = FIXTURES[options.agent]!;
  let next = 0;
  return {
    agent: options.agent,
    sessionId: options.sessionId,
    pid: child.pid!,
    dir: sessionDir(options.dataDir, options.sessionId),
    event(kind, patch = {}) {
      const payload = JSON.parse(readFileSync(hookPayload(`${fixtures.prefix}.${fixtures[kind]}`), 'utf8')) as Record<string, unknown>;
      payload.session_id = options.sessionId;
      payload.cwd = patch.cwd ?? options.cwd;
      if (patch.command !== undefined) payload.tool_input = { ...(payload.tool_input as object), command: patch.command };
      if (patch.callId !== undefined && 'tool_use_id' in payload) payload.tool_use_id = patch.callId;
      const id = next++;
      return new Promise<number>((resolve) => {
        waiting.set(id, resolve);
        child.stdin.write(JSON.stringify({ id, bin: CORDON_BIN, agent: options.agent, env: options.env, input: JSON.stringify(payload) }) + '\n');
      });
    },
    kill() {
      killGroup(child.pid);
    },
  };
}

/** Ends every stand-in agent and every sampler of their sessions (detached: they outlive the test otherwise). */
export function stopAll(sessions: readonly FakeSession[]): void {
  for (const s of sessions) {
    s.kill();
    for (const pid of samplerProcesses(s.dir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}

