import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readKernelUnits } from '../../../src/telemetry/sampler/linux/auxv.js';
import { parseLastPid, parseProcStat } from '../../../src/telemetry/sampler/linux/proc-stat.js';

const linux = process.platform === 'linux';

describe.runIf(linux)('/proc/<pid>/stat parsing', () => {
  it('reads ppid, CPU ticks, starttime and rss of this process, matching /proc/self/status', () => {
    const raw = readFileSync('/proc/self/stat');
    const stat = parseProcStat(raw, raw.length)!;
    expect(stat.ppid).toBe(process.ppid);
    expect(stat.state).toMatch(/^[RS]$/);
    expect(stat.startTicks).toBeGreaterThan(0);
    const fields = raw.toString('latin1').slice(raw.toString('latin1').lastIndexOf(')') + 2).split(' ');
    expect(stat.cpuTicks).toBe(Number(fields[11]) + Number(fields[12]));
    const { pageSize } = readKernelUnits();
    const vmRssKiB = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
    // The two reads are a moment apart; RSS moves a little in between.
    expect(Math.abs((stat.rssPages * pageSize) / 1024 - vmRssKiB)).toBeLessThan(vmRssKiB * 0.05);
  });

  it('counts fields from the last ")" so a comm with spaces and parentheses parses', () => {
    const line = Buffer.from('4242 (evil ) 1 2 (x) y) S 77 4242 4242 0 -1 4194560 100 0 0 0 13 8 0 0 20 0 1 0 555 1000000 321 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n', 'latin1');
    const stat = parseProcStat(line, line.length, undefined, true)!;
    expect(stat).toMatchObject({ state: 'S', ppid: 77, cpuTicks: 21, startTicks: 555, rssPages: 321, exitSignal: 17 });
  });

  it('returns undefined for a truncated line', () => {
    const line = Buffer.from('4242 (x) S 77 4242', 'latin1');
    expect(parseProcStat(line, line.length)).toBeUndefined();
  });

  it('tells a thread from a process by exit_signal -1', () => {
    const raw = readFileSync('/proc/self/stat');
    expect(parseProcStat(raw, raw.length, undefined, true)!.exitSignal).toBeGreaterThanOrEqual(0);
    const tids = readdirTasks().filter((t) => t !== process.pid);
    expect(tids.length).toBeGreaterThan(0); // node always runs helper threads
    const thread = readFileSync(`/proc/${tids[0]}/stat`);
    expect(parseProcStat(thread, thread.length, undefined, true)!.exitSignal).toBe(-1);
  });

  it('reads the last allocated pid from /proc/loadavg', () => {
    const raw = readFileSync('/proc/loadavg');
    const last = parseLastPid(raw, raw.length)!;
    expect(Number.isInteger(last)).toBe(true);
    expect(last).toBe(Number(raw.toString().trim().split(' ')[4]));
    expect(parseLastPid(Buffer.from('0.1 0.2 0.3 1/2\n'), 16)).toBeUndefined();
  });

  it('reads the page size and USER_HZ from the auxiliary vector', () => {
    const units = readKernelUnits();
    expect([4096, 16384, 65536]).toContain(units.pageSize);
    expect(units.clockTicks).toBe(100);
  });
});

function readdirTasks(): number[] {
  return readdirSync('/proc/self/task').map(Number);
}

/** The fields a stat line's reader takes, by field number (proc(5)); exit_signal only when asked. */
const WANTED = [4, 5, 6, 14, 15, 16, 17, 22, 24];

/**
 * What {@link parseProcStat} must read from `text`, by splitting it as a whole: the fields after
 * the last `)`, each a whole number ended by a space or newline; `undefined` when one it needs is
 * missing, not a number, or not ended (the line was cut inside it).
 */
function statByWholeSplit(text: string, withExitSignal: boolean): Record<string, unknown> | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0 || close + 2 >= text.length) return undefined;
  const rest = text.slice(close + 2);
  const last = withExitSignal ? 38 : 24;
  // Field n is token n - 3; the last one read needs its separator, so a token must follow it.
  const tokens = rest.split(/[ \n]/);
  if (tokens.length <= last - 2) return undefined;
  const field = (n: number): number | undefined => (/^-?\d+$/.test(tokens[n - 3]!) ? Number(tokens[n - 3]) : undefined);
  const wanted = withExitSignal ? [...WANTED, 38] : WANTED;
  if (wanted.some((n) => field(n) === undefined)) return undefined;
  return {
    state: rest[0],
    ppid: field(4),
    pgrp: field(5),
    session: field(6),
    cpuTicks: field(14)! + field(15)!,
    childTicks: field(16)! + field(17)!,
    startTicks: field(22),
    rssPages: field(24),
    exitSignal: withExitSignal ? field(38) : 0,
  };
}

describe('/proc/<pid>/stat parsing, whatever the line holds and wherever it is cut', () => {
  // comm is at most 15 bytes (TASK_COMM_LEN) and may hold spaces, parentheses and newlines.
  const comm = fc.array(fc.constantFrom('a', ' ', '(', ')', '\n', ') S 1 2', 'é', '-', '9'), { maxLength: 6 }).map((p) => Buffer.from(p.join('')).subarray(0, 15).toString('latin1'));
  const statLine = fc
    .tuple(fc.integer({ min: 1, max: 4_194_304 }), comm, fc.constantFrom('R', 'S', 'D', 'Z', 'T', 'X', 'I'), fc.array(fc.integer({ min: -1, max: 2 ** 40 }), { minLength: 49, maxLength: 49 }))
    .map(([pid, name, state, numbers]) => `${pid} (${name}) ${state} ${numbers.join(' ')}\n`);

  it('a line cut right after field 23 is not a stat line, whatever the buffer holds past its end', () => {
    const line = '4242 (x) S 77 4242 4242 0 -1 4194560 100 0 0 0 13 8 0 0 20 0 1 0 555 1000000';
    // The buffer is reused: bytes of a longer line read before lie past this read's length.
    const buffer = Buffer.from(`${line} -5 99 1 2 3\n`, 'latin1');
    expect(parseProcStat(buffer, line.length)).toBeUndefined();
    expect(parseProcStat(buffer, line.length + 1)).toBeUndefined();
    expect(parseProcStat(Buffer.from(line, 'latin1'), line.length)).toBeUndefined();
    expect(parseProcStat(buffer, buffer.length)).toMatchObject({ ppid: 77, startTicks: 555, rssPages: -5 });
  });

  it('reads what splitting the whole line reads, for any comm, any cut and any stale bytes past the length', () => {
    fc.assert(
      fc.property(statLine, fc.nat(), fc.boolean(), fc.uint8Array({ maxLength: 12 }), (line, at, withExitSignal, stale) => {
        const full = Buffer.from(line, 'latin1');
        const length = at % (full.length + 1);
        const buffer = Buffer.concat([full.subarray(0, length), Buffer.from(stale), full.subarray(length)]);
        const expected = statByWholeSplit(full.toString('latin1', 0, length), withExitSignal);
        const got = parseProcStat(buffer, length, undefined, withExitSignal);
        if (expected === undefined) expect(got).toBeUndefined();
        else expect(got).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
