import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
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

  it('a log exactly as long as the window is read whole: its first line is not cut', () => {
    const path = file();
    writeFileSync(path, line('first') + line('second'));
    const size = line('first').length + line('second').length;
    expect([...recentShellEnds(path, size)].map((m) => m.command)).toEqual(['second', 'first']);
    expect([...recentShellEnds(path, size - 1)].map((m) => m.command)).toEqual(['second']);
  });

  it('yields every shell end that lies whole in the window, newest first, whatever the window size and the torn or foreign lines', () => {
    const entry = fc.oneof(
      fc.string({ maxLength: 6 }).map((c) => line(`c${c}`)),
      fc.string({ maxLength: 6 }).map((c) => line(`é😀${c}`, 'ok')),
      fc.constant(line('edit', 'failed', 'tool_end', 'edit')),
      fc.constant('{"event":"tool_end","tool":"shell",\n'),
      fc.constant('\n'),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 12 }), fc.boolean(), fc.nat(), fc.integer({ min: -1, max: 1 }), (entries, torn, pick, nudge) => {
        const path = file();
        // A killed writer's torn tail: the next append ends it with a newline first.
        const text = entries.join('') + (torn ? '{"event":"tool_end","tool":"shell","command":"t' : '');
        writeFileSync(path, text);
        const size = Buffer.byteLength(text);
        // Windows that start at a line's first byte, or one byte either side, the file's start included.
        const starts = [0];
        for (const e of entries) starts.push(starts.at(-1)! + Buffer.byteLength(e));
        const maxBytes = Math.max(1, size - starts[pick % starts.length]! - nudge);
        const windowStart = Math.max(0, size - maxBytes);
        // The lines that begin inside the window, less the one at its very start when it is cut (the
        // reader cannot tell that it begins a line), parsed whole.
        const expected: string[] = [];
        let offset = 0;
        for (const entry of entries) {
          const begins = offset;
          offset += Buffer.byteLength(entry);
          if (begins < windowStart || (begins === windowStart && windowStart > 0)) continue;
          try {
            const value = JSON.parse(entry) as { event?: string; tool?: string; command?: string };
            if (value.event === 'tool_end' && value.tool === 'shell') expected.unshift(value.command!);
          } catch {
            // torn or blank
          }
        }
        expect([...recentShellEnds(path, maxBytes)].map((m) => m.command)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('a missing log is empty; a log that is a link is refused (thrown, the breaker logs it)', () => {
    expect([...recentShellEnds(join(tmp.dir, 'none.jsonl'))]).toEqual([]);
    const path = file();
    writeFileSync(join(tmp.dir, 'real.jsonl'), line('x'));
    symlinkSync(join(tmp.dir, 'real.jsonl'), path);
    expect(() => [...recentShellEnds(path)]).toThrow(/symbolic link/);
  });
});
