/**
 * The fields of `/proc/<pid>/stat` the sampler uses (proc(5); kernel `fs/proc/array.c`
 * `do_task_stat`). For a thread-group leader the CPU fields already sum over all its threads.
 */
export interface ProcStat {
  /** Field 3 `state`: one character, e.g. `R`, `S`, `Z` (zombie), `X` (dead). */
  state: string;
  /** Field 4 `ppid`. */
  ppid: number;
  /** Field 5 `pgrp`: the process group id. */
  pgrp: number;
  /** Field 6 `session`: the session id. */
  session: number;
  /** Fields 14 + 15 `utime + stime`, in clock ticks (USER_HZ). */
  cpuTicks: number;
  /**
   * Fields 16 + 17 `cutime + cstime`: CPU of the children this process has waited for (and of
   * theirs), clock ticks. It grows when a child is reaped, by that child's utime + stime +
   * cutime + cstime (proc(5); kernel `wait_task_zombie`).
   */
  childTicks: number;
  /** Field 22 `starttime`: clock ticks after boot (CLOCK_BOOTTIME, like `/proc/uptime`). */
  startTicks: number;
  /** Field 24 `rss`: resident pages. */
  rssPages: number;
  /**
   * Field 38 `exit_signal`, parsed only when asked for: -1 for a thread that is not its group's
   * leader (the kernel sets it for CLONE_THREAD), so `/proc/<tid>/stat` of a thread is told apart
   * from a process. 0 when not parsed.
   */
  exitSignal: number;
}

const SPACE = 0x20;
const CLOSE_PAREN = 0x29;
const NEWLINE = 0x0a;

/**
 * Parses one `/proc/<pid>/stat` line straight from the bytes read (no string is built, since the
 * sampler does this for every process on every tick). `comm` (field 2) may hold spaces and
 * parentheses, so fields are counted from the LAST `)`. Reads no byte at or past `length`. Returns
 * `undefined` for a malformed line: one cut short (a field it reads is not a number ended by a
 * space or newline, or the line ends before it).
 * `out` is filled and returned so a caller can reuse one object; `withExitSignal` also parses
 * field 38.
 */
export function parseProcStat(buf: Uint8Array, length: number, out: ProcStat = emptyStat(), withExitSignal = false): ProcStat | undefined {
  let i = length - 1;
  while (i >= 0 && buf[i] !== CLOSE_PAREN) i--;
  if (i < 0 || i + 2 >= length) return undefined;
  i += 2; // skip ") "
  out.state = String.fromCharCode(buf[i]!);
  // Field numbers are 1-based as in proc(5); `state` is field 3.
  let field = 3;
  let utime = 0;
  let cutime = 0;
  const last = withExitSignal ? 38 : 24;
  out.exitSignal = 0;
  while (field < last) {
    while (i < length && buf[i] !== SPACE) i++;
    // The line ends before the next field: it was cut short. Nothing past `length` is read, since
    // the caller's buffer still holds the bytes of an earlier, longer line there.
    if (i >= length) return undefined;
    i++;
    field++;
    if (field !== 4 && field !== 5 && field !== 6 && field !== 14 && field !== 15 && field !== 16 && field !== 17 && field !== 22 && field !== 24 && field !== 38) continue;
    let value = 0;
    let negative = false;
    if (i < length && buf[i] === 0x2d) {
      negative = true;
      i++;
    }
    const digits = i;
    while (i < length) {
      const c = buf[i]!;
      if (c < 0x30 || c > 0x39) break;
      value = value * 10 + (c - 0x30);
      i++;
    }
    // A field read is digits ended by a space or the newline; else the line was cut inside it.
    if (i === digits || i >= length || (buf[i] !== SPACE && buf[i] !== NEWLINE)) return undefined;
    if (negative) value = -value;
    if (field === 4) out.ppid = value;
    else if (field === 5) out.pgrp = value;
    else if (field === 6) out.session = value;
    else if (field === 14) utime = value;
    else if (field === 15) out.cpuTicks = utime + value;
    else if (field === 16) cutime = value;
    else if (field === 17) out.childTicks = cutime + value;
    else if (field === 22) out.startTicks = value;
    else if (field === 24) out.rssPages = value;
    else out.exitSignal = value;
  }
  return out;
}

/** A zeroed {@link ProcStat}. */
export function emptyStat(): ProcStat {
  return { state: '', ppid: 0, pgrp: 0, session: 0, cpuTicks: 0, childTicks: 0, startTicks: 0, rssPages: 0, exitSignal: 0 };
}

/**
 * Parses `/proc/loadavg` and returns its fifth field, the pid most recently allocated in the
 * reader's pid namespace (proc(5)); `undefined` when the line is malformed.
 */
export function parseLastPid(buf: Uint8Array, length: number): number | undefined {
  let end = length;
  while (end > 0 && (buf[end - 1] === 0x0a || buf[end - 1] === SPACE)) end--;
  let start = end;
  while (start > 0 && buf[start - 1] !== SPACE) start--;
  if (start === end) return undefined;
  let value = 0;
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c < 0x30 || c > 0x39) return undefined;
    value = value * 10 + (c - 0x30);
  }
  return value;
}
