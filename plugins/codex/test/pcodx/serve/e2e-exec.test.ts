import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runProcess } from '../../../../../test/support/cli.js';
import { holdPerTest } from '../../../../../test/support/fake-models/index.js';
import { tableRows } from '../support.js';
import { codexBox, killServes, requestText, startServeProcess } from './support.js';

const held = holdPerTest();
// Registered after holdPerTest, so it runs first: serves stop their app-servers before the fake closes.
afterEach(killServes);

it('codex exec --remote through pcodx serve: turns are ingested, partial_compact drops the sentinel from the next model request, a remote resume of the thread continues from the compacted context', async () => {
  const { box, server, codex, bin, db, env: base } = await codexBox(held, 'cordon-serve-e2e-');
  const live = join(box.root, 'live');
  const env = { ...base, PCODX_LIVE_CONTEXT_DIR: live };
  // The default transport: both sockets are unix sockets in the serve's own owner-only directory.
  const serve = await startServeProcess(['--codex-bin', bin, '--enable-pcodx-tools', '--session', 'e2e'], env, codex.workdir);
  expect(serve.banner.session_id).toBe('e2e');
  expect(serve.listen).toMatch(/^unix:\/\/\/.*\/serve\.sock$/);
  expect(serve.banner.connect).toBe(`codex --remote ${serve.listen}`);
  const exec = (args: string[]) => runProcess([bin, 'exec', '--remote', serve.listen, '--skip-git-repo-check', '--json', ...args], { env, cwd: codex.workdir, timeoutMs: 90_000 });
  // `codex exec --json` prints {"type":"thread.started","thread_id":…}; a remote resume needs that UUID.
  const threadOf = (stdout: string) => stdout.split('\n').map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((e) => e.type === 'thread.started')?.thread_id as string;

  const first = await exec(['please remember SENTINEL_7f3a9 for later']);
  expect(first.exitCode, first.stderr).toBe(0);
  expect(first.stdout).toContain('SENTINEL_PRESENT');
  const thread = threadOf(first.stdout);
  expect(thread).toMatch(/^[0-9a-f-]{36}$/);

  const compact = JSON.stringify({ ranges: [{ from_message_id: 'msg1', to_message_id: 'msg2', summary: 'SUMMARY_b41: the user asked to remember a code word' }] });
  const second = await exec(['resume', thread, `now compact: CALL_TOOL partial_compact ${compact}`]);
  expect(second.exitCode, second.stderr).toBe(0);
  expect(second.stdout).toContain('TOOL_RESULT_SEEN');
  expect(second.stdout).toContain('cmp1');

  const rows = tableRows(db, 'select id, role, text, source from messages order by seq');
  expect(rows.map((r) => r.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  expect(rows[0]!.text).toBe('please remember SENTINEL_7f3a9 for later');
  expect(rows[1]!.text).toContain('SENTINEL_PRESENT');
  expect(String(rows[3]!.text)).toContain('partial_compact: cmp1 replaced msg1..msg2');
  expect(String(rows[3]!.source)).toMatch(/^codex-app-server:.+:untrusted$/);
  expect(tableRows(db, 'select id, from_msg_id, to_msg_id from compactions')).toEqual([{ id: 'cmp1', from_msg_id: 'msg1', to_msg_id: 'msg2' }]);

  const before = server.modelRequests().length;
  const third = await exec(['resume', thread, 'what do you know?']);
  expect(third.exitCode, third.stderr).toBe(0);
  expect(third.stdout).toContain('SENTINEL_ABSENT');
  const next = server.modelRequests()[before]!;
  const text = requestText(next);
  expect(text).toContain('SUMMARY_b41');
  expect(text).toContain('<aboveturn id=\\"cmp1\\"/>');
  expect(text).toContain('<aboveturn id=\\"msg4\\"/>');
  expect(text).not.toContain('SENTINEL_7f3a9');

  // The audit copy of what was injected: owner-only directory and files.
  expect(statSync(live).mode & 0o777).toBe(0o700);
  const files = readdirSync(live);
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) expect(statSync(join(live, f)).mode & 0o777).toBe(0o600);
  const lastFile = JSON.parse(readFileSync(join(live, files.sort().at(-1)!), 'utf8'));
  expect(JSON.stringify(lastFile.items)).toContain('SUMMARY_b41');

  expect(await serve.stop()).toBe(0);
  // The app-server the serve started is gone with it.
  expect(() => process.kill(Number(serve.banner.upstream_pid), 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  expect(serve.stderr()).toContain('event=turn_ingested');
  expect(existsSync(db)).toBe(true);
}, 240_000);
