import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPlugins, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { privateTmux } from '../../../../test/support/tmux.js';
import { waitFor } from '../../../../test/support/wait.js';
import { columns } from '../../src/top/columns.js';
import { startFakeSession, stopAll, type FakeSession } from './sessions.js';

// The live `cordon top` in a real terminal (tmux): it draws on the alternate screen, shows
// sessions as they start (no sessions, one, several) and a sampler that died, re-sorts on a key,
// quits on q and on Ctrl-C, and leaves the screen and the terminal's settings as it found them.

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let sessions: FakeSession[] = [];
const tmux = privateTmux('cordon-top');
beforeEach(() => {
  box = makeSandbox('cordon-top-live-');
  linkPlugins(box.dataDir, ['claude-code', 'codex']);
  env = { ...box.env, CORDON_INTERVAL: '100', TERM: 'xterm' };
});
afterEach(() => {
  tmux.kill();
  stopAll(sessions);
  sessions = [];
  box.cleanup();
});
const screen = (): string => tmux.screen('t');

/** Waits until the screen matches `pattern`; returns the screen. */
function shows(pattern: RegExp, what: string): Promise<string> {
  return waitFor(() => {
    const text = screen();
    return pattern.test(text) ? text : undefined;
  }, { what: () => `${what}; the screen:\n${screen()}`, timeoutMs: 60_000 });
}

/** Starts `cordon top` in a tmux window of 150×30 after a line of its own, saving `stty -g` before and after. */
function startTop(): void {
  // Written whole under a temporary name, then renamed: the test never reads it half written.
  const stty = (name: string) => `stty -g > '${join(box.root, name)}.tmp' && mv '${join(box.root, name)}.tmp' '${join(box.root, name)}'`;
  const script = `echo BEFORE-TOP; ${stty('stty.before')}; '${process.execPath}' '${CORDON_BIN}' top; echo EXIT=$?; ${stty('stty.after')}; sleep 600`;
  const started = tmux.run(['new-session', '-d', '-s', 't', '-x', '150', '-y', '30', 'sh', '-c', script], env);
  expect(started.status, started.stderr).toBe(0);
}

/** After top quit: the normal screen is back (the line before it, no frame) and the terminal's settings are those before. */
async function restored(exit = 0): Promise<void> {
  const after = await shows(new RegExp(`EXIT=${exit}`), `top exited ${exit}`);
  expect(after).toContain('BEFORE-TOP');
  expect(after).not.toContain('cordon top ·');
  await waitFor(() => existsSync(join(box.root, 'stty.after')), { what: 'stty -g after top' });
  expect(readFileSync(join(box.root, 'stty.after'), 'utf8')).toBe(readFileSync(join(box.root, 'stty.before'), 'utf8'));
}

function session(agent: 'claude-code' | 'codex', id: string, cwd: string): FakeSession {
  const s = startFakeSession({ agent, sessionId: id, env, dataDir: box.dataDir, cwd });
  sessions.push(s);
  return s;
}

describe.runIf(process.platform === 'linux')('cordon top in a terminal', () => {
  it('no sessions, then one, then several as they start; a sampler that died; sorting keys; q quits and restores', async () => {
    startTop();
    await shows(/cordon top · 0 sessions · sorted by CPU · \d\d:\d\d:\d\d · sort: c CPU, m mem, t time, d call, p dir · q quits/, 'the empty view');
    expect(screen()).toContain('no agent session running');
    expect(screen()).not.toContain('BEFORE-TOP'); // the alternate screen

    // A session started after top: the next refresh shows it, with its call and numbers.
    const first = session('claude-code', 'live-first', '/srv/zz');
    expect(await first.event('start', { command: 'npm test' })).toBe(0);
    await shows(/cordon top · 1 session ·[^]*claude-code +live-first +\/srv\/zz +\d+:\d\d +[\d.]+[MG] +[\d.]+ +[\d.]+[MG] +Bash \d+:\d\d npm test/, 'the first session with a sample');

    const second = session('codex', 'live-second', '/srv/aa');
    expect(await second.event('start', { command: 'cargo build' })).toBe(0);
    await shows(/cordon top · 2 sessions ·[^]*codex +live-second +\/srv\/aa +\d+:\d\d +[\d.]+[MG]/, 'the second session with a sample');

    // The first session's sampler killed: its row says so at the next refresh.
    const pid = Number(JSON.parse(readFileSync(join(first.dir, 'sampler.lock.1'), 'utf8')).pid);
    process.kill(pid, 'SIGKILL');
    await shows(/live-first +\/srv\/zz +\d+:\d\d sampler died +Bash/, 'the dead sampler');

    // Keys re-sort: running time puts the first session first, the directory the second.
    tmux.run(['send-keys', '-t', 't', 't']);
    await shows(/sorted by running time[^]*live-first[^]*live-second/, 'sorted by running time');
    tmux.run(['send-keys', '-t', 't', 'p']);
    await shows(/sorted by directory[^]*live-second[^]*live-first/, 'sorted by directory');
    // Upper case is the same key: T running time again, P the directory (it was CPU).
    tmux.run(['send-keys', '-t', 't', 'T']);
    await shows(/sorted by running time[^]*live-first[^]*live-second/, 'sorted by running time (T)');
    tmux.run(['send-keys', '-t', 't', 'P']);
    await shows(/sorted by directory[^]*live-second[^]*live-first/, 'sorted by directory (P)');

    // A narrower terminal: redrawn at once, the session id and running time make room, no line wraps.
    expect(tmux.run(['resize-window', '-t', 't', '-x', '70']).status).toBe(0);
    const narrow = await shows(/^AGENT +CWD +MEM +CPU% +PEAK +CALL/m, 'the narrow layout');
    for (const line of narrow.split('\n')) expect(line.trimEnd().length, line).toBeLessThan(70);

    tmux.run(['send-keys', '-t', 't', 'q']);
    await restored();
  });

  it('a terminal of 40×8 with more sessions than rows: the "more lines" footer is cut to the width, nothing wraps, the header stays', async () => {
    // Seven sessions of this (running) process, written as the hook writes them: each is listed
    // (its agent pid lives), each takes two lines, so 8 rows hold three and a footer.
    for (let i = 0; i < 7; i++) {
      const dir = join(box.dataDir, 'runs', `narrow-${i}`);
      mkdirSync(dir, { recursive: true });
      const marker = { v: 1, event: 'tool_start', ts: Date.now(), session_id: `narrow-${i}`, agent: 'claude-code', native_event: 'PreToolUse', hook_overhead_ms: 1, hook_pid: 1, agent_pid: process.pid, call_key: 'k', tool_name: 'Bash', command: 'make', cwd: '/srv' };
      const end = { ...marker, event: 'tool_end', ts: Date.now() - 1000, call_key: 'k0', exit_status: 'ok', exit_code: 0 };
      writeFileSync(join(dir, 'markers.jsonl'), `${JSON.stringify(end)}\n${JSON.stringify(marker)}\n`);
    }
    const started = tmux.run(['new-session', '-d', '-s', 't', '-x', '40', '-y', '8', process.execPath, CORDON_BIN, 'top'], env);
    expect(started.status, started.stderr).toBe(0);
    const text = await shows(/^… \d+ more lines$/m, 'the footer');
    const lines = text.replace(/\n+$/, '').split('\n');
    expect(lines[0]).toMatch(/^cordon top · 7 sessions · /);
    expect(lines.at(-1)).toBe('… 9 more lines');
    // capture-pane -J joins a wrapped line back: a line wider than the terminal would show here.
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(40);
    tmux.run(['send-keys', '-t', 't', 'q']);
  });

  it('terminals narrower than the 40-column layout (12, then 25 columns after a resize): every line is cut to the terminal, none wraps', async () => {
    const dir = join(box.dataDir, 'runs', 'tiny');
    mkdirSync(dir, { recursive: true });
    const marker = { v: 1, event: 'tool_start', ts: Date.now(), session_id: 'tiny-session', agent: 'claude-code', native_event: 'PreToolUse', hook_overhead_ms: 1, hook_pid: 1, agent_pid: process.pid, call_key: 'k', tool_name: 'Bash', command: 'make all', cwd: '/srv' };
    writeFileSync(join(dir, 'markers.jsonl'), `${JSON.stringify(marker)}\n`);
    const started = tmux.run(['new-session', '-d', '-s', 't', '-x', '12', '-y', '5', process.execPath, CORDON_BIN, 'top'], env);
    expect(started.status, started.stderr).toBe(0);
    // capture-pane -J joins a wrapped line back: a line wider than the terminal shows as one here.
    const fits = (cols: number) => (text: string) => {
      const lines = text.replace(/\n+$/, '').split('\n');
      return lines[0]!.startsWith('cordon top') && lines.every((line) => columns(line) <= cols) ? text : undefined;
    };
    await waitFor(() => fits(12)(screen()), { what: () => `lines of at most 12 columns, the header first; the screen:\n${screen()}`, timeoutMs: 60_000 });
    expect(tmux.run(['resize-window', '-t', 't', '-x', '25', '-y', '4']).status).toBe(0);
    await waitFor(() => (/cordon top · 1/.test(screen()) ? fits(25)(screen()) : undefined), { what: () => `lines of at most 25 columns after the resize; the screen:\n${screen()}`, timeoutMs: 60_000 });
    tmux.run(['send-keys', '-t', 't', 'q']);
  });

  it('SIGTERM ends it with 143 after restoring the terminal', async () => {
    startTop();
    await shows(/cordon top · 0 sessions/, 'the view');
    const shell = Number(tmux.run(['list-panes', '-t', 't', '-F', '#{pane_pid}']).stdout.trim());
    const top = Number(readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(' ')[0]);
    expect(readFileSync(`/proc/${top}/cmdline`, 'utf8')).toContain('\0top');
    process.kill(top, 'SIGTERM');
    await restored(143);
  });

  it('Ctrl-C quits and restores too', async () => {
    startTop();
    await shows(/cordon top · 0 sessions/, 'the view');
    tmux.run(['send-keys', '-t', 't', 'C-c']);
    await restored();
  });
});
