import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../../test/support/cli.js';
import { makeRepo } from '../../../../../test/support/git.js';
import { privateTmux } from '../../../../../test/support/tmux.js';
import { waitFor } from '../../../../../test/support/wait.js';
import { AgentStderrFollower, agentStderrLines } from '../../../src/envelope/attempt/agent-stderr.js';
import { clearStatus, enableStatus, setStatus } from '../../../src/output/status.js';

// An attempt that ends in an engine error shows why, from the agent's stderr: `cordon run` and
// `cordon status` print its last lines (redacted, escaped, repeats counted); while the agent runs
// the status line shows its last stderr line. Through the built CLI with the codex plugin's real
// runner and a stand-in `codex` (--agent-bin), as a Codex that cannot reach its API behaves.

let sandbox: Sandbox;
const tmux = privateTmux('cordon-agent-stderr');
beforeEach(() => {
  sandbox = makeSandbox('cordon-agent-stderr-');
  linkPlugins(sandbox.dataDir, ['codex']);
});
afterEach(() => {
  tmux.kill();
  sandbox.cleanup();
});

const WEBSOCKET = 'ERROR codex_api::endpoint::responses_websocket: failed to connect to Responses WebSocket';

/** A stand-in codex that reads the prompt, then runs `body` (sh). */
function fakeCodex(body: string): string {
  const path = join(sandbox.dir('bin'), 'codex');
  writeFileSync(path, `#!/bin/sh\ncat >/dev/null\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Seven time-stamped connection errors, a secret and an escape sequence on stderr, then a wait longer than the timeout. */
const OFFLINE = [
  'printf "\\033[2m2026-12-03T20:40:0%s.123456Z\\033[0m \\033[31mERROR\\033[0m codex_api::endpoint::responses_websocket: failed to connect to Responses WebSocket\\n" 1 2 3 4 5 6 7 >&2',
  'echo "auth: Authorization: Bearer sk-proj-abcdefghijklmnopqrstuvwxyz0123456789" >&2',
  'printf "title \\033]0;pwned\\007 set\\n" >&2',
  'sleep 30',
].join('\n');

describe('the end of the agent’s stderr after an engine error', () => {
  it('run prints its last lines, deduplicated, redacted and escaped; status shows them too', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n' }, sandbox.env);
    const r = await runCordon(['run', 'add a mul function', '--agent', 'codex', '--agent-bin', fakeCodex(OFFLINE), '--allow', 'src/**', '--timeout', '2'], { cwd: repo, env: sandbox.env, timeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(4);
    const shown = [
      '  error: Codex timed out after 2 s',
      '  agent stderr, last lines of attempt 1:',
      `      ${WEBSOCKET} (7 times)`,
      '      auth: Authorization: Bearer ***',
      '      title \\u001b]0;pwned\\u0007 set',
    ].join('\n');
    expect(r.stdout).toContain(shown);
    expect(r.stdout).not.toMatch(/[\u001b\u0007]|abcdefghij/);
    // Piped: no status line (the run was shorter than the plain line's interval).
    expect(r.stderr).not.toMatch(/[\r\u001b]|running in/);

    const status = await runCordon(['status'], { cwd: repo, env: sandbox.env });
    expect(status.stdout).toContain(['last error: Codex timed out after 2 s', 'agent stderr, last lines of attempt 1:', `    ${WEBSOCKET} (7 times)`, '    auth: Authorization: Bearer ***', '    title \\u001b]0;pwned\\u0007 set'].join('\n'));
    const json = JSON.parse((await runCordon(['status', '--json'], { cwd: repo, env: sandbox.env })).stdout);
    expect(json.last_agent_stderr).toEqual([`${WEBSOCKET} (7 times)`, 'auth: Authorization: Bearer ***', 'title \u001b]0;pwned\u0007 set']);
    // The record keeps the tail as written, but for the secret.
    const kept = JSON.parse(readFileSync(join(repo, '.cordon/attempt-1.json'), 'utf8')).run.stderr_tail as string;
    expect(kept).toContain('Bearer ***');
    expect(kept).not.toContain('abcdefghij');
    expect(kept.split('responses_websocket').length - 1).toBe(7);
  }, 60_000);

  it('a Codex that exits 0 printing nothing is said to have done so, not to have reported an error', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n' }, sandbox.env);
    const r = await runCordon(['run', 'add a mul function', '--agent', 'codex', '--agent-bin', fakeCodex('exit 0'), '--allow', 'src/**'], { cwd: repo, env: sandbox.env, timeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stdout + r.stderr).toContain('Codex exited 0 but printed no JSON events on stdout');
    expect(r.stdout + r.stderr).not.toContain('reported an error');
  });

  it('on a terminal the status line shows the agent’s last stderr line while it runs', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n' }, sandbox.env);
    const release = join(sandbox.root, 'release');
    const agent = fakeCodex(`echo "2026-12-03T20:40:01Z WARN codex_core: reconnecting 1/5" >&2\nwhile [ ! -e ${release} ]; do sleep 0.1; done\nexit 1`);
    const line = `'${process.execPath}' '${CORDON_BIN}' run 'wait' --agent codex --agent-bin '${agent}' --allow 'src/**'; echo EXIT=$?; sleep 600`;
    expect(tmux.run(['new-session', '-d', '-s', 's', '-x', '220', '-y', '20', '-c', repo, 'sh', '-c', line], { ...sandbox.env, TERM: 'xterm' }).status).toBe(0);
    const screen = () => tmux.screen('s');
    await waitFor(() => /cordon run: Codex attempt 1\/\d+ running in .* · \d+ s · stderr: WARN codex_core: reconnecting 1\/5/.test(screen()), { what: 'the stderr line in the status line', timeoutMs: 60_000 });
    writeFileSync(release, '');
    const done = await waitFor(() => (/EXIT=\d+/.test(screen()) ? screen() : undefined), { what: 'the verdict', timeoutMs: 60_000 });
    expect(done).toMatch(/EXIT=4/);
    expect(done).toContain('    WARN codex_core: reconnecting 1/5');
    expect(done).not.toContain('running in');
  }, 120_000);
});

describe('agentStderrLines', () => {
  it('counts repeats where they last occurred, drops blank lines, keeps the last lines only', () => {
    expect(agentStderrLines('a\n\nb\na\r\nc\n')).toEqual(['b', 'a (2 times)', 'c']);
    expect(agentStderrLines(Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n'), 3)).toEqual(['line 17', 'line 18', 'line 19']);
    expect(agentStderrLines(null)).toEqual([]);
  });
});

describe('AgentStderrFollower', () => {
  it('keeps the last non-blank line, an unfinished one first, a character split across chunks whole', () => {
    const f = new AgentStderrFollower();
    expect(f.lastLine()).toBeUndefined();
    const text = Buffer.from('first\nsecond é\n\n');
    f.add(text.subarray(0, 13));
    f.add(text.subarray(13));
    expect(f.lastLine()).toBe('second é');
    f.add(Buffer.from('2026-12-03T20:40:01.5Z token=hunter2hunter2 partial'));
    expect(f.lastLine()).toBe('token=*** partial');
  });
});

describe('plain status lines where stderr is not a terminal', () => {
  it('print the status as plain lines at the interval, and nothing more once cleared', async () => {
    const written: string[] = [];
    const stream = { isTTY: false, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
    expect(enableStatus({ stream })).toBe(false);
    expect(enableStatus({ stream, plainEveryMs: 40 })).toBe(true);
    setStatus('cordon run: Codex attempt 1/3 running', () => 'stderr: \u001b[31mretrying');
    expect(written).toEqual([]);
    await waitFor(() => written.length >= 2, { what: 'two plain lines', timeoutMs: 10_000 });
    clearStatus();
    const count = written.length;
    await new Promise((r) => setTimeout(r, 120));
    expect(written.length).toBe(count);
    for (const line of written) expect(line).toMatch(/^cordon run: Codex attempt 1\/3 running · \d+ s · stderr: \\u001b\[31mretrying\n$/);
  });
});
