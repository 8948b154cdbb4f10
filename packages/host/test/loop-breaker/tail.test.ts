import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recentShellEnds } from '../../src/loop-breaker/index.js';
import { tempDir } from '../hot/support.js';

const line = (command: string, status = 'failed', event = 'tool_end', tool = 'shell') => JSON.stringify({ v: 1, event, ts: 1, session_id: 's', tool, command, exit_status: status }) + '\n';

describe('recentShellEnds', () => {
  const tmp = tempDir('cordon-loop-tail-');
  afterEach(() => tmp.cleanup());
  const file = () => {
    mkdirSync(tmp.dir, { recursive: true });
    return join(tmp.dir, 'markers.jsonl');
  };

  it('yields the shell tool ends newest first, skipping other events, tools, torn and foreign lines', () => {
    const path = file();
    writeFileSync(path, line('one') + line('two', 'ok', 'tool_start') + '{"event":"tool_end","tool":"shell",' + '\n' + line('edit', 'ok', 'tool_end', 'edit') + 'not json "tool_end" "shell"\n' + line('three', 'ok'));
    expect([...recentShellEnds(path)].map((m) => m.command)).toEqual(['three', 'one']);
  });

  it('reads only the window at the end; the cut first line is dropped', () => {
    const path = file();
    for (let i = 0; i < 200; i++) appendFileSync(path, line(`cmd-${i}`));
    const size = line('cmd-199').length;
    const got = [...recentShellEnds(path, size * 3 + 10)].map((m) => m.command);
    expect(got).toEqual(['cmd-199', 'cmd-198', 'cmd-197']);
  });

  it('a missing log is empty; a log that is a link is refused (thrown, the breaker logs it)', () => {
    expect([...recentShellEnds(join(tmp.dir, 'none.jsonl'))]).toEqual([]);
    const path = file();
    writeFileSync(join(tmp.dir, 'real.jsonl'), line('x'));
    symlinkSync(join(tmp.dir, 'real.jsonl'), path);
    expect(() => [...recentShellEnds(path)]).toThrow(/symbolic link/);
  });
});
