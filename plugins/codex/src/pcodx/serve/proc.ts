import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { isIP } from 'node:net';

// Process and socket identity from Linux's /proc (proc(5)): who holds a listening socket, and
// whether a pid still names the process it named when it was recorded. Every function answers
// `undefined` (or an empty list) where /proc is missing; callers decide what that means.

/** True where /proc describes processes and sockets (Linux). */
export function procAvailable(): boolean {
  return existsSync('/proc/self/stat') && existsSync('/proc/net/unix');
}

/** The fields of `/proc/<pid>/stat` the serve uses. */
export interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  /** Process group id. */
  readonly pgid: number;
  /** Field 22 `starttime`: clock ticks after boot. With the pid, it names one process for the life of the machine. */
  readonly start: string;
}

/** `/proc/<pid>/stat`, or undefined when the process is gone (or /proc is missing). */
export function procStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')': split after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): field n is rest[n - 3].
  if (rest[0] === 'Z' || rest[0] === 'X') return undefined;
  return { pid, ppid: Number(rest[1]), pgid: Number(rest[2]), start: rest[19]! };
}

/** A process as recorded: alive and the same one when `procStat(pid).start` still equals `start`. */
export interface ProcessId {
  readonly pid: number;
  readonly start: string;
}

/** The recorded process, if that very process still runs (not merely a process with a reused pid). */
export function stillRunning(id: ProcessId): boolean {
  return procStat(id.pid)?.start === id.start;
}

/** Every live process of process group `pgid`. */
export function groupMembers(pgid: number): ProcStat[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const out: ProcStat[] = [];
  for (const pid of pids) {
    const stat = procStat(Number(pid));
    if (stat?.pgid === pgid) out.push(stat);
  }
  return out;
}

/** Inodes of the listening unix sockets bound to exactly `path` (`/proc/net/unix`, flag `__SO_ACCEPTCON`). */
export function unixListenerInodes(path: string): string[] {
  const out: string[] = [];
  for (const line of readLines('/proc/net/unix').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path
    const cols = line.trim().split(/\s+/);
    if (cols.length < 8 || cols.slice(7).join(' ') !== path) continue;
    if ((parseInt(cols[3]!, 16) & 0x10000) !== 0) out.push(cols[6]!);
  }
  return out;
}

/** Inodes of the TCP sockets in LISTEN on `host:port` (`/proc/net/tcp`, `/proc/net/tcp6`); IPv4 and `::1` only. */
export function tcpListenerInodes(host: string, port: number): string[] {
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  let table: string;
  let address: string;
  if (isIP(host) === 4) {
    table = '/proc/net/tcp';
    // The address is one 32-bit word in host (little-endian) byte order.
    address = host.split('.').map((n) => Number(n).toString(16).toUpperCase().padStart(2, '0')).reverse().join('');
  } else if (host === '::1') {
    table = '/proc/net/tcp6';
    address = '00000000000000000000000001000000';
  } else {
    return [];
  }
  const out: string[] = [];
  for (const line of readLines(table).slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
    const cols = line.trim().split(/\s+/);
    if (cols[1] === `${address}:${portHex}` && cols[3] === '0A') out.push(cols[9]!);
  }
  return out;
}

/** The pids among `pids` that hold an open descriptor of socket `inode`. */
export function socketHolders(inode: string, pids: readonly number[]): number[] {
  const target = `socket:[${inode}]`;
  return pids.filter((pid) => {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return false;
    }
    return fds.some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === target;
      } catch {
        return false;
      }
    });
  });
}

function readLines(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '');
  } catch {
    return [];
  }
}
