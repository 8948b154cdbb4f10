import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPlugins, makeSandbox, REPO_ROOT, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { waitFor } from '../../../../test/support/wait.js';
import type { TopSnapshot } from '../../src/top/snapshot.js';
import { startFakeSession, stopAll, type FakeSession } from './sessions.js';

// `cordon top --once` and `--json` from the built CLI, on sessions made by the real hook and
// sampler: none, one, several, and one whose sampler was killed.

const validate = new Ajv2020({ strict: true, allErrors: true }).compile(JSON.parse(readFileSync(join(REPO_ROOT, 'packages/host/schemas/top.schema.json'), 'utf8')));

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let sessions: FakeSession[] = [];

beforeEach(() => {
  sandbox = makeSandbox('cordon-top-cli-');
  linkPlugins(sandbox.dataDir, ['claude-code', 'codex', 'gemini']);
  env = { ...sandbox.env, CORDON_INTERVAL: '100' };
});
afterEach(() => {
  stopAll(sessions);
  sessions = [];
  sandbox.cleanup();
});

function session(agent: 'claude-code' | 'codex' | 'gemini', sessionId: string, cwd: string): FakeSession {
  const s = startFakeSession({ agent, sessionId, env, dataDir: sandbox.dataDir, cwd });
  sessions.push(s);
  return s;
}

/** `cordon top --json`, checked against its schema. */
async function topJson(...args: string[]): Promise<TopSnapshot> {
  const r = await runCordon(['top', '--json', ...args], { env: sandbox.env });
  expect(r.exitCode, r.stderr).toBe(0);
  const snapshot = JSON.parse(r.stdout) as TopSnapshot;
  expect(validate(snapshot) ? [] : validate.errors).toEqual([]);
  return snapshot;
}

/** `cordon top --once` (stdout is a pipe here). */
async function topOnce(...args: string[]): Promise<string[]> {
  const r = await runCordon(['top', '--once', ...args], { env: sandbox.env });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).not.toMatch(/\u001b/);
  return r.stdout.trimEnd().split('\n');
}

/** Waits until `--json` shows every session of `ids` with a live sampler and a sample. */
function allSampled(ids: readonly string[]): Promise<TopSnapshot> {
  return waitFor(async () => {
    const s = await topJson();
    return ids.every((id) => s.sessions.some((x) => x.session_id === id && x.sampler.state === 'running' && x.now)) ? s : undefined;
  }, { what: `samples of ${ids.join(', ')}`, timeoutMs: 60_000 });
}

describe.runIf(process.platform === 'linux')('cordon top --once and --json', () => {
  it('no sessions', async () => {
    const snapshot = await topJson();
    expect(snapshot).toMatchObject({ schema_version: 1, data_dir: sandbox.dataDir, sort: 'cpu', sessions: [] });
    const lines = await topOnce();
    expect(lines[0]).toMatch(/^cordon top · 0 sessions · sorted by CPU · \d\d:\d\d:\d\d$/);
    expect(lines[1]).toBe(`no agent session running (sessions are read from ${join(sandbox.dataDir, 'runs')})`);
  });

  it('one session, its current call and its last call', async () => {
    const s = session('claude-code', 'cli-one', '/srv/one');
    expect(await s.event('start', { command: 'npm run lint', callId: 'toolu_cli_1' })).toBe(0);
    expect(await s.event('end', { command: 'npm run lint', callId: 'toolu_cli_1' })).toBe(0);
    expect(await s.event('start', { command: 'npm test', callId: 'toolu_cli_2' })).toBe(0);
    const snapshot = await allSampled(['cli-one']);
    expect(snapshot.sessions).toHaveLength(1);
    expect(snapshot.sessions[0]).toMatchObject({ agent: 'claude-code', cwd: '/srv/one', agent_pid: s.pid, current_call: { tool_name: 'Bash', command: 'npm test' }, last_calls: [{ command: 'npm run lint', exit_status: 'ok' }] });
    const lines = await topOnce();
    expect(lines[0]).toMatch(/^cordon top · 1 session · sorted by CPU/);
    expect(lines[1]).toMatch(/^AGENT +SESSION +CWD +UP +MEM +CPU% +PEAK +CALL$/);
    expect(lines[2]).toMatch(/^claude-code +cli-one +\/srv\/one +\d+:\d\d +[\d.]+[MG] +[\d.]+ +[\d.]+[MG] +Bash \d+:\d\d npm test$/);
    expect(lines[3]).toMatch(/^ {3}ok +\d+:\d\d {2}Bash {2}npm run lint$/);
    expect(lines).toHaveLength(4);
  });

  it('several sessions of three agents, --sort and --calls', async () => {
    const a = session('claude-code', 'cli-a', '/srv/c');
    const b = session('codex', 'cli-b', '/srv/a');
    const c = session('gemini', 'cli-c', '/srv/b');
    for (const s of [a, b, c]) expect(await s.event('start', { command: `job ${s.sessionId}` })).toBe(0);
    await allSampled(['cli-a', 'cli-b', 'cli-c']);
    const byCwd = await topJson('--sort', 'cwd');
    expect(byCwd.sort).toBe('cwd');
    expect(byCwd.sessions.map((x) => [x.agent, x.cwd])).toEqual([['codex', '/srv/a'], ['gemini', '/srv/b'], ['claude-code', '/srv/c']]);
    const lines = await topOnce('--sort', 'time', '--calls', '0');
    expect(lines[0]).toMatch(/· 3 sessions · sorted by running time ·/);
    expect(lines.slice(2).map((l) => l.split(/ +/)[1])).toEqual(['cli-a', 'cli-b', 'cli-c']);
  });

  it('a session whose sampler was killed: "sampler died", no numbers; its agent killed: gone', async () => {
    const s = session('claude-code', 'cli-died', '/srv/d');
    expect(await s.event('start', { command: 'sleep 1000' })).toBe(0);
    const running = (await allSampled(['cli-died'])).sessions[0]!;
    process.kill(running.sampler.pid!, 'SIGKILL');
    const died = await waitFor(async () => {
      const x = (await topJson()).sessions[0];
      return x?.sampler.state === 'died' ? x : undefined;
    }, { what: 'the sampler seen dead' });
    expect(died).toMatchObject({ session_id: 'cli-died', now: null, agent_pid: s.pid, current_call: { command: 'sleep 1000' } });
    const lines = await topOnce();
    expect(lines[2]).toMatch(/^claude-code +cli-died +\/srv\/d +\d+:\d\d sampler died +Bash \d+:\d\d sleep 1000$/);
    s.kill();
    await waitFor(async () => (await topJson()).sessions.length === 0, { what: 'the session gone with its agent' });
  });

  it('what an agent sent is escaped on the terminal and kept as sent in --json', async () => {
    const command = 'echo \u001b]52;c;cHduZWQ=\u0007 \u202etxt.exe \u001b[2J';
    const cwd = '/srv/\u001b]0;title\u0007/日本';
    const s = session('gemini', 'cli-hostile', cwd);
    expect(await s.event('start', { command })).toBe(0);
    const snapshot = await allSampled(['cli-hostile']);
    expect(snapshot.sessions[0]).toMatchObject({ cwd, current_call: { command } });
    const lines = await topOnce();
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    const text = lines.join('\n');
    expect(text).toContain('/srv/\\u001b]0;title\\u0007/日本');
    expect(text).toContain('run_shell_command 0:');
    expect(text).toContain('echo \\u001b]52;c;cHduZWQ=\\u0007 \\u202etxt.exe \\u001b[2J');
  });

  it('bad input: an unknown sort key exits 2 naming the flag', async () => {
    const r = await runCordon(['top', '--sort', 'size'], { env: sandbox.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--sort/);
    expect(r.stderr).toMatch(/cpu, mem, time, call, cwd/);
  });

  it('--width fits every line to the columns asked for', async () => {
    const s = session('claude-code', 'cli-width-0123456789-0123456789', '/srv/a/very/long/directory/name/that/does/not/fit');
    expect(await s.event('start', { command: 'x'.repeat(300) })).toBe(0);
    await allSampled(['cli-width-0123456789-0123456789']);
    for (const width of [40, 80, 132]) for (const line of await topOnce('--width', String(width))) expect([...line].length, line).toBeLessThanOrEqual(width);
  });

  it.runIf(process.platform === 'linux')('a terminal reporting 0 columns gets COLUMNS, else 80, never fewer than 40', async () => {
    const s = session('claude-code', 'cli-zero-0123456789-0123456789', '/srv/a/very/long/directory/name/that/does/not/fit/anywhere/at/all');
    expect(await s.event('start', { command: 'y'.repeat(300) })).toBe(0);
    await allSampled(['cli-zero-0123456789-0123456789']);
    // `script` gives top a real pty; `stty cols 0` makes it report 0 columns, as some hosts' ptys do.
    const onZeroColumns = (columns: string | undefined): string[] => {
      const shEnv: NodeJS.ProcessEnv = { ...sandbox.env, TERM: 'xterm' };
      delete shEnv.COLUMNS;
      if (columns !== undefined) shEnv.COLUMNS = columns;
      const r = spawnSync('script', ['-qec', `stty cols 0 rows 0; '${process.execPath}' '${CORDON_BIN}' top --once`, '/dev/null'], { env: shEnv, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.replace(/\r/g, '').trimEnd().split('\n');
    };
    const widest = (lines: string[]) => Math.max(...lines.map((l) => [...l].length));
    expect(widest(onZeroColumns(undefined))).toBe(79);
    expect(widest(onZeroColumns('120'))).toBe(119);
    expect(widest(onZeroColumns('0'))).toBe(79);
    expect(widest(onZeroColumns('12'))).toBe(40);
  });

  it.runIf(process.platform === 'linux')('the live view on a terminal reporting 0 rows gets LINES, else 24, and shows the sessions', async () => {
    const s = session('claude-code', 'zrows', '/srv/rows');
    expect(await s.event('start', { command: 'echo rows' })).toBe(0);
    await allSampled(['zrows']);
    // Before: every frame was only the "… more lines: a taller terminal shows them" footer.
    // `q` is typed once the first frame is drawn, not after a fixed time: on a loaded machine
    // a signal sent after three seconds could land before top had started.
    const onZeroRows = async (lines: string | undefined): Promise<string> => {
      const shEnv: NodeJS.ProcessEnv = { ...sandbox.env, TERM: 'xterm' };
      delete shEnv.LINES;
      if (lines !== undefined) shEnv.LINES = lines;
      const child = spawn('script', ['-qec', `stty cols 100 rows 0; '${process.execPath}' '${CORDON_BIN}' top`, '/dev/null'], { env: shEnv, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      try {
        await waitFor(() => /zrows|a taller terminal shows them/.test(stdout), { timeoutMs: 60_000, what: 'the first frame of cordon top' });
        child.stdin.write('q');
        expect(await ended, stderr).toBe(0);
      } finally {
        child.kill('SIGKILL');
      }
      return stdout;
    };
    for (const lines of [undefined, '30', '0']) {
      const shown = await onZeroRows(lines);
      expect([lines, shown.includes('zrows')]).toEqual([lines, true]);
      expect(shown).not.toContain('a taller terminal shows them');
    }
  });
});
