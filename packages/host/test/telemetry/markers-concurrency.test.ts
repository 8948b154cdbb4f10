import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { CORDON_BIN, linkPlugins, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { readMarkers } from '../../src/telemetry/markers.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';

// 200 real `cordon hook` processes of one session are started and held on stdin until all of
// them run; then every payload is released at once, so the appends race. Not one line may be
// lost or torn (markers.ts: one write(2) per line on an O_APPEND descriptor).

const N = 200;
let sandbox: Sandbox | undefined;
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  children.length = 0;
  sandbox?.cleanup();
});

it(`loses and tears no marker when ${N} hook processes of one session append at once`, async () => {
  sandbox = makeSandbox('cordon-concurrency-');
  linkPlugins(sandbox.dataDir, ['claude-code']);
  const session = 'concurrent-session-0001';
  // 200 Node processes boot for several seconds on two cores: wait for stdin as long as that takes.
  const env = { ...sandbox.env, CORDON_HOOK_STDIN_TIMEOUT_MS: '150000', CORDON_HOOK_TIMEOUT_MS: '160000', CORDON_SAMPLER: 'off' };
  const exits: Array<Promise<number | null>> = [];
  for (let i = 0; i < N; i++) {
    const child = spawn(process.execPath, [CORDON_BIN, 'hook', '--agent', 'claude-code'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(child);
    exits.push(new Promise((r) => child.on('close', (code) => r(code))));
  }
  // Long commands make each line a few KiB, well past what a torn write could hide.
  children.forEach((child, i) => {
    const payload = { session_id: session, hook_event_name: 'PreToolUse', cwd: '/w', tool_name: 'Bash', tool_use_id: `toolu_${i}`, tool_input: { command: `echo ${String(i).padStart(3, '0')} ${'x'.repeat(1500)}` } };
    child.stdin!.end(JSON.stringify(payload));
  });
  const codes = await Promise.all(exits);
  expect(codes.every((c) => c === 0)).toBe(true);
  const { markers, badLines } = readMarkers(join(sessionDir(sandbox.dataDir, session), 'markers.jsonl'));
  expect(badLines).toEqual([]);
  expect(markers).toHaveLength(N);
  expect(new Set(markers.map((m) => m.call_key)).size).toBe(N);
  for (const m of markers) expect(m.command).toBe(`echo ${m.call_key!.slice('toolu_'.length).padStart(3, '0')} ${'x'.repeat(1500)}`);
}, 180_000);
