import { createRequire } from 'node:module';
import { parseProcessTable, type ParseOptions, type ProcessRecord } from './process-table.js';

/** `SystemProcessInformation`, the information class of the whole process table. */
const SYSTEM_PROCESS_INFORMATION = 5;
/** `STATUS_INFO_LENGTH_MISMATCH`: the buffer is too small; `ReturnLength` says what is needed. */
const STATUS_INFO_LENGTH_MISMATCH = 0xc0000004 | 0;

/** Signature of `ntdll!NtQuerySystemInformation` as koffi calls it. */
type NtQuerySystemInformation = (cls: number, buf: Buffer, len: number, ret: number[]) => number;

/**
 * Reads the whole process table with one `NtQuerySystemInformation(SystemProcessInformation)`
 * call per snapshot, through the `koffi` FFI package (its Windows prebuilt; loaded here only, so
 * the module is imported on win32 alone). The buffer is kept between calls and grows (to what the
 * call asks plus a quarter) when the table outgrows it.
 * `options` go to {@link parseProcessTable} (image names for the walk past shells).
 * @throws Error naming the NTSTATUS when the call fails for another reason than the buffer size.
 */
export function createNtSnapshot(options: ParseOptions = {}): () => ProcessRecord[] {
  const query = createNtQuery();
  return () => {
    const { buf, length } = query();
    return parseProcessTable(buf, length, options);
  };
}

/** The raw call behind {@link createNtSnapshot}: the filled buffer and the bytes written (fixture recording, benchmarks). */
export function createNtQuery(): () => { buf: Buffer; length: number } {
  // koffi is CommonJS; createRequire keeps this module loadable by the plain ESM loader.
  const koffi = createRequire(import.meta.url)('koffi') as { load(name: string): { func(signature: string): NtQuerySystemInformation } };
  const query = koffi.load('ntdll.dll').func('int32_t __stdcall NtQuerySystemInformation(uint32_t cls, _Out_ uint8_t *buf, uint32_t len, _Out_ uint32_t *ret)');
  let buf = Buffer.alloc(512 * 1024);
  const ret = [0];
  return () => {
    for (let attempt = 0; ; attempt++) {
      ret[0] = 0;
      const status = query(SYSTEM_PROCESS_INFORMATION, buf, buf.length, ret);
      if (status === 0) return { buf, length: ret[0] || buf.length };
      if (status !== STATUS_INFO_LENGTH_MISMATCH || attempt >= 4) throw new Error(`NtQuerySystemInformation failed: NTSTATUS 0x${(status >>> 0).toString(16)}`);
      buf = Buffer.alloc(Math.max(buf.length * 2, Math.ceil(((ret[0] ?? 0) * 5) / 4)));
    }
  };
}
