import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stepPastShells, WINDOWS_SHELLS } from '../src/agent-root.js';
import { buildProcessTable, parseProcessTable, type RecordFields } from '../src/process-table.js';

/** FILETIME (100 ns since 1601) of 2020-01-01. */
const FT_2020 = 132_223_104_000_000_000n;
const SECOND = 10_000_000n;

const rec = (pid: number, ppid: number, imageName: string | undefined, createdS: number): RecordFields => ({
  pid,
  ppid,
  createTime: FT_2020 + BigInt(createdS) * SECOND,
  userTime: 0n,
  kernelTime: 0n,
  workingSetBytes: 1 << 20,
  privateBytes: 0,
  ...(imageName === undefined ? {} : { imageName }),
});

/** Parses a hand-built table as the sampler would (names on). */
const table = (records: RecordFields[]) => parseProcessTable(buildProcessTable(records), undefined, { imageNames: true });

describe('parseProcessTable with imageNames', () => {
  it('reads the names of a buffer recorded under Wine (pointers are addresses in the caller)', () => {
    const buf = readFileSync(new URL('./fixtures/wine8-process-table.bin', import.meta.url));
    expect(parseProcessTable(buf, buf.length, { imageNames: true }).map((p) => p.imageName)).toEqual(['services.exe', 'winedevice.exe', 'winedevice.exe', 'plugplay.exe', 'svchost.exe', 'rpcss.exe', 'node.exe']);
    expect(parseProcessTable(buf).every((p) => p.imageName === undefined)).toBe(true); // a tick reads none
  });

  it('round-trips any names through a built buffer, and drops a pointer outside its record', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }), { nil: undefined }), { minLength: 1, maxLength: 12 }), (names) => {
        const records = names.map((n, i) => rec(100 + i * 4, 4, n, i));
        expect(table(records).map((p) => p.imageName)).toEqual(names.map((n) => (n === undefined ? undefined : Buffer.from(n, 'utf16le').toString('utf16le'))));
      }),
    );
    const buf = buildProcessTable([rec(8, 4, 'a.exe', 0), rec(12, 8, 'b.exe', 1)]);
    buf.writeBigUInt64LE(buf.readBigUInt64LE(64) + 1_000_000n, buf.readUInt32LE(0) + 64); // second name points far away
    expect(parseProcessTable(buf, buf.length, { imageNames: true }).map((p) => p.imageName)).toEqual(['a.exe', undefined]);
  });
});

describe('stepPastShells: the agent above the shell a hook ran under', () => {
  it('steps from cmd.exe, PowerShell or Git Bash to the agent, through nested shells', () => {
    const t = table([rec(10, 4, 'explorer.exe', 0), rec(20, 10, 'node.exe', 5), rec(30, 20, 'cmd.exe', 9), rec(40, 30, 'powershell.exe', 10), rec(50, 20, 'bash.exe', 11), rec(60, 20, 'PWSH.EXE', 12)]);
    expect(stepPastShells(t, 30)).toBe(20);
    expect(stepPastShells(t, 40)).toBe(20);
    expect(stepPastShells(t, 50)).toBe(20);
    expect(stepPastShells(t, 60)).toBe(20); // names compare case-insensitively
    expect(stepPastShells(t, 20)).toBe(20); // not a shell: itself
  });

  it('keeps the named pid when the chain breaks: parent gone, parent pid reused by a newer process, no name', () => {
    expect(stepPastShells(table([rec(30, 20, 'cmd.exe', 9)]), 30)).toBe(30);
    expect(stepPastShells(table([rec(20, 10, 'node.exe', 50), rec(30, 20, 'cmd.exe', 9)]), 30)).toBe(30);
    expect(stepPastShells(table([rec(20, 10, undefined, 5), rec(30, 20, 'cmd.exe', 9)]), 30)).toBe(20); // an unnamed process is not a shell
    expect(stepPastShells(table([rec(20, 10, 'node.exe', 5)]), 99)).toBe(99); // not in the table
  });

  it('gives up after 8 shells in a row', () => {
    const chain = [rec(2, 1, 'node.exe', 0), ...Array.from({ length: 10 }, (_, i) => rec(10 + i, i === 0 ? 2 : 9 + i, 'sh.exe', i + 1))];
    expect(stepPastShells(table(chain), 19)).toBe(19);
    expect(stepPastShells(table(chain), 14)).toBe(2);
  });

  it('knows the shells of the agents\' Windows docs', () => {
    for (const s of ['cmd.exe', 'powershell.exe', 'pwsh.exe', 'bash.exe', 'sh.exe']) expect(WINDOWS_SHELLS.has(s)).toBe(true);
  });
});
