import { readdirSync, readFileSync } from 'node:fs';
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
