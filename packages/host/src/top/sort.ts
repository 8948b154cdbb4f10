import type { TopSession } from './snapshot.js';

/**
 * What `cordon top` sorts by: `cpu` and `mem` (the tree's newest sample, highest first), `time`
 * (the session's running time, longest first), `call` (how long the current call has run,
 * longest first), `cwd` (the working directory, A to Z).
 */
export type TopSortKey = 'cpu' | 'mem' | 'time' | 'call' | 'cwd';

/** Every sort key, in the order the help lists them. */
export const TOP_SORT_KEYS: readonly TopSortKey[] = Object.freeze(['cpu', 'mem', 'time', 'call', 'cwd']);

/**
 * The letter of each sort key in the live view, upper or lower case alike (the help line says
 * each once): `systemd-cgtop`'s `c`, `m`, `t` and `p` (its path, here the directory), and `d`
 * for the current call's duration. htop's `P` for CPU is not taken: one letter, one order.
 */
export const SORT_LETTERS: Readonly<Record<TopSortKey, string>> = Object.freeze({ cpu: 'c', mem: 'm', time: 't', call: 'd', cwd: 'p' });

/** The sort key a pressed key selects, by {@link SORT_LETTERS} in either case. */
export const SORT_KEYS_PRESSED: Readonly<Record<string, TopSortKey>> = Object.freeze(
  Object.fromEntries(TOP_SORT_KEYS.flatMap((key) => [SORT_LETTERS[key], SORT_LETTERS[key].toUpperCase()].map((letter) => [letter, key]))),
);

/** How each key reads in the live view's help line (short: the line shares the header). */
export const SORT_HELP: Readonly<Record<TopSortKey, string>> = Object.freeze({ cpu: 'CPU', mem: 'mem', time: 'time', call: 'call', cwd: 'dir' });

/** The live view's help line for the keys: `sort: c CPU, m mem, t time, d call, p dir · q quits`. */
export function sortKeysHelp(): string {
  return `sort: ${TOP_SORT_KEYS.map((key) => `${SORT_LETTERS[key]} ${SORT_HELP[key]}`).join(', ')} · q quits`;
}

/** How each key reads in the header. */
export const SORT_LABELS: Readonly<Record<TopSortKey, string>> = Object.freeze({ cpu: 'CPU', mem: 'memory', time: 'running time', call: 'call time', cwd: 'directory' });

/** A number to sort on, highest first; sessions without one go last. */
function measure(s: TopSession, key: Exclude<TopSortKey, 'cwd'>): number | undefined {
  if (key === 'cpu') return s.now?.cpu_pct ?? undefined;
  if (key === 'mem') return s.now?.mem_mb ?? undefined;
  if (key === 'time') return s.running_ms ?? undefined;
  return s.current_call?.running_ms;
}

/** `sessions` sorted by `key` (a new array); ties by the older session first, then the session id. */
export function sortSessions(sessions: readonly TopSession[], key: TopSortKey): TopSession[] {
  const tie = (a: TopSession, b: TopSession): number => (a.started_at ?? Infinity) - (b.started_at ?? Infinity) || (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0);
  return [...sessions].sort((a, b) => {
    if (key === 'cwd') {
      const x = a.cwd ?? '\uffff';
      const y = b.cwd ?? '\uffff';
      return x < y ? -1 : x > y ? 1 : tie(a, b);
    }
    const x = measure(a, key);
    const y = measure(b, key);
    if (x === undefined || y === undefined) return x === y ? tie(a, b) : x === undefined ? 1 : -1;
    return y - x || tie(a, b);
  });
}
