/**
 * Parsing of the buffer `NtQuerySystemInformation(SystemProcessInformation)` fills: one
 * `SYSTEM_PROCESS_INFORMATION` record per process, chained by `NextEntryOffset` (0 ends the chain),
 * each followed by its `SYSTEM_THREAD_INFORMATION` array. Pure code, so it is tested on Linux from
 * recorded and hand-built buffers.
 *
 * Field offsets are those of the 64-bit layout (winternl.h / the NT headers as documented by
 * Microsoft for `SYSTEM_PROCESS_INFORMATION`; the fields after `HandleCount` are the long-standing
 * undocumented tail that every process tool reads); only x64 (and arm64, same layout) Windows is
 * served.
 */

/** One process of the system's process table, as read from the buffer. */
export interface ProcessRecord {
  /** `UniqueProcessId`. */
  readonly pid: number;
  /**
   * `InheritedFromUniqueProcessId`: the pid of the creating process at creation time. Windows never
   * updates it, so it may name an exited process or a later process that reused the number.
   */
  readonly ppid: number;
  /** `CreateTime`, 100 ns units since 1601-01-01 UTC (a bigint: the value exceeds 2^53). */
  readonly createTime: bigint;
  /** `UserTime` + `KernelTime`, 100 ns units, summed over the process's life. */
  readonly cpu100ns: number;
  /** `WorkingSetSize`, bytes: physical pages currently mapped, shared ones included (like Linux RSS). */
  readonly workingSetBytes: number;
  /** `PrivatePageCount`, bytes: the commit charge (private bytes), resident or paged out. */
  readonly privateBytes: number;
  /**
   * `ImageName`: the executable's file name (`node.exe`, `cmd.exe`); read only when asked for
   * ({@link ParseOptions.imageNames}), and absent for the idle process or a name that does not
   * lie inside the buffer.
   */
  readonly imageName?: string;
}

/** Options of {@link parseProcessTable}. */
export interface ParseOptions {
  /** Decode each record's `ImageName` (UTF-16LE); off by default, as a tick needs no names. */
  readonly imageNames?: boolean;
}

/** Byte offsets inside one x64 `SYSTEM_PROCESS_INFORMATION` record. */
export const SPI_OFFSETS = {
  nextEntryOffset: 0,
  numberOfThreads: 4,
  createTime: 32,
  userTime: 40,
  kernelTime: 48,
  uniqueProcessId: 80,
  /** `ImageName`, a UNICODE_STRING: `Length` (bytes, u16) here, its `Buffer` pointer at 64. */
  imageNameLength: 56,
  imageNameBuffer: 64,
  inheritedFromUniqueProcessId: 88,
  workingSetSize: 144,
  privatePageCount: 200,
  /** Size of the fixed part; the thread array starts here. */
  size: 256,
} as const;

/** Size of one x64 `SYSTEM_THREAD_INFORMATION`. */
export const THREAD_INFO_SIZE = 80;

/**
 * Reads every process record of a SystemProcessInformation buffer.
 * @param buf the buffer the call filled.
 * @param length bytes the call reported as written (`ReturnLength`); defaults to `buf.length`.
 * @param options `imageNames` to decode each record's `ImageName`. Its `Buffer` is an address in the
 *   caller's memory: the names sit inside the same buffer, right after each record's thread array,
 *   so the buffer's address is the first name's pointer minus that offset, and every other name is
 *   found from it (and dropped when it would lie outside its record).
 * @returns the records in buffer order (pid 0, the idle process, included).
 * @throws RangeError when a record or a `NextEntryOffset` points outside `length` (a truncated or
 *   foreign buffer), or when an offset does not advance.
 */
export function parseProcessTable(buf: Buffer, length = buf.length, options: ParseOptions = {}): ProcessRecord[] {
  const out: ProcessRecord[] = [];
  const end = Math.min(length, buf.length);
  let off = 0;
  let base: bigint | undefined;
  for (;;) {
    const threadsEnd = off + SPI_OFFSETS.size + buf.readUInt32LE(off + SPI_OFFSETS.numberOfThreads) * THREAD_INFO_SIZE;
    if (off + SPI_OFFSETS.size > end || threadsEnd > end) {
      throw new RangeError(`process record at ${off} runs past the ${end}-byte buffer`);
    }
    const next = buf.readUInt32LE(off + SPI_OFFSETS.nextEntryOffset);
    let imageName: string | undefined;
    if (options.imageNames) {
      const bytes = buf.readUInt16LE(off + SPI_OFFSETS.imageNameLength);
      const ptr = buf.readBigUInt64LE(off + SPI_OFFSETS.imageNameBuffer);
      if (bytes > 0 && ptr !== 0n) {
        base ??= ptr - BigInt(threadsEnd);
        const at = Number(ptr - base);
        const recordEnd = next === 0 ? end : Math.min(end, off + next);
        if (at >= threadsEnd && at + bytes <= recordEnd && bytes % 2 === 0) imageName = buf.toString('utf16le', at, at + bytes);
      }
    }
    out.push({
      pid: Number(buf.readBigUInt64LE(off + SPI_OFFSETS.uniqueProcessId)),
      ppid: Number(buf.readBigUInt64LE(off + SPI_OFFSETS.inheritedFromUniqueProcessId)),
      createTime: buf.readBigInt64LE(off + SPI_OFFSETS.createTime),
      cpu100ns: Number(buf.readBigInt64LE(off + SPI_OFFSETS.userTime) + buf.readBigInt64LE(off + SPI_OFFSETS.kernelTime)),
      workingSetBytes: Number(buf.readBigUInt64LE(off + SPI_OFFSETS.workingSetSize)),
      privateBytes: Number(buf.readBigUInt64LE(off + SPI_OFFSETS.privatePageCount)),
      ...(imageName === undefined ? {} : { imageName }),
    });
    if (next === 0) return out;
    if (next < SPI_OFFSETS.size) throw new RangeError(`NextEntryOffset ${next} at ${off} is shorter than a record`);
    off += next;
  }
}

/** Fields of one record to build with {@link writeProcessRecord} (tests and fixtures). */
export interface RecordFields {
  pid: number;
  ppid: number;
  createTime: bigint;
  userTime: bigint;
  kernelTime: bigint;
  workingSetBytes: number;
  privateBytes: number;
  threads?: number;
  /** Written after the thread array, its pointer as if the buffer lived at `0x10000000`. */
  imageName?: string;
}

/** The address {@link buildProcessTable} pretends its buffer has, for `ImageName` pointers. */
const BUILT_BASE = 0x1000_0000n;

/**
 * Builds a SystemProcessInformation buffer from records, laid out as Windows does (fixed part,
 * then the thread array, then the image name, each record 8-byte aligned, last `NextEntryOffset`
 * 0). Thread entries are zero-filled. Used by tests to make buffers by hand.
 */
export function buildProcessTable(records: readonly RecordFields[]): Buffer {
  const nameBytes = (r: RecordFields): number => (r.imageName === undefined ? 0 : Math.ceil((r.imageName.length * 2) / 8) * 8);
  const sizes = records.map((r) => SPI_OFFSETS.size + (r.threads ?? 1) * THREAD_INFO_SIZE + nameBytes(r));
  const buf = Buffer.alloc(sizes.reduce((a, b) => a + b, 0));
  let off = 0;
  records.forEach((r, i) => {
    buf.writeUInt32LE(i === records.length - 1 ? 0 : sizes[i]!, off + SPI_OFFSETS.nextEntryOffset);
    buf.writeUInt32LE(r.threads ?? 1, off + SPI_OFFSETS.numberOfThreads);
    buf.writeBigInt64LE(r.createTime, off + SPI_OFFSETS.createTime);
    buf.writeBigInt64LE(r.userTime, off + SPI_OFFSETS.userTime);
    buf.writeBigInt64LE(r.kernelTime, off + SPI_OFFSETS.kernelTime);
    buf.writeBigUInt64LE(BigInt(r.pid), off + SPI_OFFSETS.uniqueProcessId);
    buf.writeBigUInt64LE(BigInt(r.ppid), off + SPI_OFFSETS.inheritedFromUniqueProcessId);
    buf.writeBigUInt64LE(BigInt(r.workingSetBytes), off + SPI_OFFSETS.workingSetSize);
    buf.writeBigUInt64LE(BigInt(r.privateBytes), off + SPI_OFFSETS.privatePageCount);
    if (r.imageName !== undefined) {
      const at = off + SPI_OFFSETS.size + (r.threads ?? 1) * THREAD_INFO_SIZE;
      buf.write(r.imageName, at, 'utf16le');
      buf.writeUInt16LE(r.imageName.length * 2, off + SPI_OFFSETS.imageNameLength);
      buf.writeUInt16LE(r.imageName.length * 2, off + SPI_OFFSETS.imageNameLength + 2);
      buf.writeBigUInt64LE(BUILT_BASE + BigInt(at), off + SPI_OFFSETS.imageNameBuffer);
    }
    off += sizes[i]!;
  });
  return buf;
}
