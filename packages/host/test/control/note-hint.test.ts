import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GuardResult } from '@cordon/plugin-api';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { endedText, noteText, normaliseCommand, shouldWarn, stallMs } from '../../src/control/note.js';
import { countWarning } from '../../src/control/store.js';
import { limitOf, nextTierName, parseHint, stallPolicy, TIERS } from '../../src/control/tiers.js';

// The hint grammar, the tier table, when the note is written and what it says, and the warning
// count kept in a real SQLite file across processes (the tier table of uncoalesced/cordon).

const MiB = 2 ** 20;

/** A measured, enforced run with the given overrides. */
function result(over: Partial<GuardResult> = {}): GuardResult {
  return {
    backend: 'cgroup-linux', enforced: true, exitCode: 0, notes: [], tier: 'low', finalTier: 'low', limitBytes: 25 * MiB, ramBytes: 1000 * MiB, cpuWeight: 25,
    peakBytes: 300 * MiB, peakSource: 'memory.peak', events: { high: 120, max: 0, oom: 0, oom_kill: 0 }, memoryPressure: { someUs: 0, fullUs: 0 }, cpuPressure: null,
    cpuStat: {}, frozenCount: 0, frozenMs: 0, escalations: [], wallMs: 10_000, removed: true, ...over,
  };
}

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('hint', () => {
  it('reads the forms an agent writes', () => {
    expect(parseHint(undefined)).toEqual({ memory: 'medium', cpu: 'medium', unknown: [] });
    expect(parseHint('memory:low')).toEqual({ memory: 'low', cpu: 'low', unknown: [] });
    expect(parseHint('MEM:High, cpu:low')).toEqual({ memory: 'high', cpu: 'low', unknown: [] });
    expect(parseHint('max')).toMatchObject({ memory: 'max' });
    expect(parseHint('ram:max;cpu:medium')).toEqual({ memory: 'max', cpu: 'medium', unknown: [] });
    expect(parseHint('memory:huge gpu:2')).toEqual({ memory: 'medium', cpu: 'medium', unknown: ['memory:huge', 'gpu:2'] });
  });

  it('never throws and always yields a known tier', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const h = parseHint(text);
        expect(TIERS.map((t) => t.name)).toContain(h.memory);
        expect(TIERS.map((t) => t.name)).toContain(h.cpu);
      }),
    );
  });

  it('has the seed table: 2.5 / 10 / 35 % and unlimited, cpu.weight 25 / 100 / 400 / 1000', () => {
    const ram = 16 * 2 ** 30;
    expect(TIERS.map((t) => [t.name, limitOf(t, ram), t.cpuWeight])).toEqual([
      ['low', 429496729, 25],
      ['medium', 1717986918, 100],
      ['high', 6012954214, 400],
      ['max', null, 1000],
    ]);
    expect(nextTierName('low')).toBe('medium');
    expect(nextTierName('max')).toBe('max');
  });

  it('takes stall policy overrides and ignores nonsense', () => {
    expect(stallPolicy({})).toEqual({ windowMs: 5000, fullFraction: 0.8, pollMs: 250 });
    expect(stallPolicy({ CORDON_CONTROL_STALL_WINDOW_MS: '2000', CORDON_CONTROL_STALL_FULL: '0.5', CORDON_CONTROL_POLL_MS: '100' })).toEqual({ windowMs: 2000, fullFraction: 0.5, pollMs: 100 });
    expect(stallPolicy({ CORDON_CONTROL_STALL_WINDOW_MS: 'x', CORDON_CONTROL_STALL_FULL: '3', CORDON_CONTROL_POLL_MS: '1' })).toEqual({ windowMs: 5000, fullFraction: 0.8, pollMs: 250 });
  });
});

describe('note', () => {
  it('is written above max(200 ms, 5 % of the runtime) of memory stall, and always after an OOM kill or a freeze', () => {
    expect(shouldWarn(result({ memoryPressure: { someUs: 0, fullUs: 500_000 } }))).toBe(false); // 0.5 s of 10 s = 5 %
    expect(shouldWarn(result({ memoryPressure: { someUs: 0, fullUs: 500_001 } }))).toBe(true);
    expect(shouldWarn(result({ wallMs: 1000, memoryPressure: { someUs: 0, fullUs: 200_000 } }))).toBe(false);
    expect(shouldWarn(result({ wallMs: 1000, memoryPressure: { someUs: 0, fullUs: 201_000 } }))).toBe(true);
    expect(shouldWarn(result({ events: { oom_kill: 1 } }))).toBe(true);
    expect(shouldWarn(result({ frozenCount: 1, frozenMs: 800 }))).toBe(true);
    expect(shouldWarn(result({ enforced: false, frozenCount: 1 }))).toBe(false);
    expect(shouldWarn(result({ memoryPressure: null }))).toBe(false);
  });

  it('gives peak, tier, limit, stall and advice, and escalates from the third warning', () => {
    const r = result({ memoryPressure: { someUs: 4_000_000, fullUs: 3_000_000 } });
    const first = noteText(r, 1);
    expect(first).toBe(
      '[cordon] This tool call was resource-limited. It peaked at 300 MiB against a memory:low limit of 25 MiB. ' +
        'It stalled on memory for 3.0 s (30 % of its 10.0 s runtime). ' +
        'Narrow the command (fewer files, tests or parallel jobs) or set AGENT_RESOURCE_HINT=memory:medium.',
    );
    expect(noteText(r, 2)).not.toContain('retrying');
    expect(noteText(r, 3)).toContain('This is limit warning number 3 for this exact command; retrying it unchanged is unlikely to help.');
    const raised = noteText(result({ finalTier: 'high', escalations: [{ atMs: 5200, from: 'low', to: 'medium', limitBytes: 100 * MiB }, { atMs: 10400, from: 'medium', to: 'high', limitBytes: 350 * MiB }] }), 1);
    expect(raised).toContain('After a sustained full stall cordon raised memory.high to memory:medium (100 MiB) at 5.2 s.');
    expect(raised).toContain('memory:high (350 MiB) at 10.4 s.');
    expect(raised).toContain('AGENT_RESOURCE_HINT=memory:max');
    expect(noteText(result({ memoryPressure: { someUs: 0, fullUs: 40_000 } }), 1)).not.toContain('stalled');
    expect(noteText(result({ frozenCount: 1, frozenMs: 1500 }), 1)).toContain('It was frozen for 1.5 s and resumed, not killed.');
    expect(noteText(result({ tier: 'max', finalTier: 'max', limitBytes: null, events: { oom_kill: 2 } }), 1)).toMatch(/memory:max \(no memory limit\)\. It was killed by the OOM killer \(memory\.events oom_kill 2\).*it already ran without a memory limit/);
  });

  it('without PSI goes by the memory.events estimate: warns, says so, and names the cause of each raise', () => {
    // The VM's no-PSI run: memory.pressure unreadable, memory.events high 34, held over memory.high 2.8 s of 5.4 s.
    const noPsi = result({ memoryPressure: null, stallSource: 'memory.events', throttledMs: 2800, wallMs: 5400, events: { high: 34 },
      escalations: [{ atMs: 1700, from: 'low', to: 'medium', limitBytes: 96 * MiB, cause: 'memory.events' }], finalTier: 'medium' });
    expect(stallMs(noPsi)).toBe(2800);
    expect(shouldWarn(noPsi)).toBe(true);
    const text = noteText(noPsi, 1);
    expect(text).toContain('It was throttled over its memory limit for about 2.8 s (52 % of its 5.4 s runtime; memory.events high 34, no PSI here).');
    expect(text).toContain('After sustained throttling over memory.high cordon raised memory.high to memory:medium (96 MiB) at 1.7 s.');
    expect(text).not.toContain('stalled on memory');
    // Without PSI and never held over the limit: no note.
    expect(shouldWarn(result({ memoryPressure: null, stallSource: 'memory.events', throttledMs: 0 }))).toBe(false);
    // With PSI the estimate is not used.
    expect(stallMs(result({ memoryPressure: { someUs: 0, fullUs: 100_000 }, stallSource: 'memory.pressure', throttledMs: 9000 }))).toBe(100);
  });

  it('names the processes ended with the call, at most five, in one line', () => {
    const one = endedText([{ pid: 4242, command: 'nohup npm run dev' }]);
    expect(one).toMatch(/^When this tool call ended, cordon ended 1 process it had left running: 4242 \(nohup npm run dev\)\. /);
    const many = endedText(Array.from({ length: 7 }, (_, i) => ({ pid: 100 + i, command: `sleep ${i}` })));
    expect(many).toContain('cordon ended 7 processes it had left running: 100 (sleep 0), 101 (sleep 1), 102 (sleep 2), 103 (sleep 3), 104 (sleep 4) and 2 more.');
    expect(many).not.toContain('\n');
  });

  it('counts commands by their normalised text', () => {
    expect(normaliseCommand(['sh', '-c', '  npm   test\n'])).toBe('sh -c npm test');
    expect(normaliseCommand(['pytest', '-x'])).toBe(normaliseCommand(['pytest ', ' -x']));
  });
});

describe('warning count', () => {
  it('counts per command in control.sqlite3, across processes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-warn-'));
    expect(await countWarning(dir, 'npm test')).toBe(1);
    expect(await countWarning(dir, 'npm test')).toBe(2);
    expect(await countWarning(dir, 'pytest')).toBe(1);
    // Four other processes count the same command at once: none of their counts is lost.
    const script = `import('${join(import.meta.dirname, '../../dist/control/store.js')}').then(m => m.countWarning(process.argv[1], 'npm test')).then(n => console.log(n))`;
    const counts = await Promise.all(
      [1, 2, 3, 4].map(
        () =>
          new Promise<number>((resolve, reject) => {
            const child = spawn(process.execPath, ['-e', script, dir!], { stdio: ['ignore', 'pipe', 'inherit'] });
            let out = '';
            child.stdout.on('data', (b: Buffer) => (out += b));
            child.on('error', reject);
            child.on('close', () => resolve(Number(out.trim())));
          }),
      ),
    );
    expect(counts.sort()).toEqual([3, 4, 5, 6]);
    expect(await countWarning(dir, 'npm test')).toBe(7);
  });
});
