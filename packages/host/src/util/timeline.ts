// A per-phase timeline of one process, for finding where a fast route's time goes
// (docs/ARCHITECTURE.md "The hot paths"). Off unless `CORDON_TIMELINE=1`: then a mark costs a
// clock read and the table goes to stderr when the process exits.

import { writeSync } from 'node:fs';

/**
 * One recorded phase boundary: wall ms since the process started, process CPU ms (user + sys, all
 * threads) and the process's minor page faults so far (getrusage `ru_minflt`). Faults are counted
 * because on some virtual machines each costs 10–15 µs, and then the memory a phase touches, not
 * its instructions, is most of its time (docs/ARCHITECTURE.md "The hot paths").
 */
interface Mark {
  readonly label: string;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly faults: number;
}

let marks: Mark[] | undefined;

/**
 * Records that the phase `label` has ended, when `CORDON_TIMELINE=1` is set in this process's
 * environment; otherwise does nothing. The first mark arranges for the table to be written to
 * stderr (fd 2, synchronously, without creating `process.stderr`) at exit: Node's own start-up
 * (`performance.nodeTiming.bootstrapComplete`, read only then), one line per mark and the exit,
 * each with the wall time since the process started, the process's CPU time and minor page
 * faults so far, and their differences to the line before (times in ms).
 */
export function mark(label: string): void {
  if (marks === undefined) {
    if (process.env.CORDON_TIMELINE !== '1') return;
    marks = [];
    process.once('exit', () => {
      mark('exit');
      writeTimeline(marks ?? []);
    });
  }
  const usage = process.resourceUsage();
  marks.push({ label, wallMs: process.uptime() * 1000, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, faults: usage.minorPageFault });
}

/** Writes the table of {@link mark} to fd 2: a header, Node's start-up, then one row per mark. */
function writeTimeline(list: readonly Mark[]): void {
  const f = (x: number) => x.toFixed(1).padStart(8);
  const n = (x: number) => String(x).padStart(8);
  const lines = [`${'phase ends'.padEnd(26)}${'wall ms'.padStart(8)}${'+wall'.padStart(8)}${'cpu ms'.padStart(8)}${'+cpu'.padStart(8)}${'faults'.padStart(8)}${'+faults'.padStart(8)}`];
  const boot = performance.nodeTiming.bootstrapComplete;
  lines.push(`${'node start-up'.padEnd(26)}${f(boot)}${f(boot)}`);
  let prev = { wallMs: boot, cpuMs: 0, faults: 0 };
  for (const m of list) {
    lines.push(`${m.label.padEnd(26)}${f(m.wallMs)}${f(m.wallMs - prev.wallMs)}${f(m.cpuMs)}${f(m.cpuMs - prev.cpuMs)}${n(m.faults)}${n(m.faults - prev.faults)}`);
    prev = m;
  }
  try {
    writeSync(2, `${lines.join('\n')}\n`);
  } catch {
    // A closed stderr only loses the table.
  }
}
