import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';

/** Kernel constants the `/proc` sampler needs to turn page and clock-tick counts into units. */
export interface KernelUnits {
  /** Bytes per page; `/proc/<pid>/stat` field 24 (`rss`) counts pages. */
  readonly pageSize: number;
  /** Clock ticks per second (USER_HZ); `utime`, `stime` and `starttime` count these. */
  readonly clockTicks: number;
}

// Auxiliary-vector keys from <elf.h>: what sysconf(_SC_PAGESIZE) and sysconf(_SC_CLK_TCK) return.
const AT_PAGESZ = 6n;
const AT_CLKTCK = 17n;

/**
 * Reads the page size and USER_HZ from `/proc/self/auxv` (pairs of native words: key, value), the
 * same source glibc's `sysconf` uses, so no process has to be spawned for `getconf`. Falls back to
 * 4096 bytes and 100 Hz (the x86-64 and arm64 defaults) when the file cannot be read.
 */
export function readKernelUnits(path = '/proc/self/auxv'): KernelUnits {
  let pageSize = 4096;
  let clockTicks = 100;
  try {
    const raw = readFileSync(path);
    const wide = process.arch.endsWith('64');
    const le = endianness() === 'LE';
    const word = (off: number): bigint => (wide ? (le ? raw.readBigUInt64LE(off) : raw.readBigUInt64BE(off)) : BigInt(le ? raw.readUInt32LE(off) : raw.readUInt32BE(off)));
    const step = wide ? 16 : 8;
    for (let off = 0; off + step <= raw.length; off += step) {
      const key = word(off);
      const value = word(off + step / 2);
      if (key === 0n) break; // AT_NULL ends the vector
      if (key === AT_PAGESZ && value > 0n) pageSize = Number(value);
      if (key === AT_CLKTCK && value > 0n) clockTicks = Number(value);
    }
  } catch {
    // Keep the defaults.
  }
  return { pageSize, clockTicks };
}
