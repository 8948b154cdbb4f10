import type { ToolCallRow } from '../reduce/db/schema.js';
import { categorize, type CompiledRule } from './rules.js';

/**
 * Running totals of one group of calls (a tool, or a shell-command category). Additive, so the
 * batch pools per-session groups without keeping the calls. Times ms, memory MiB.
 */
export interface GroupTotals {
  n: number;
  total_ms: number;
  /** Calls with a window peak (at least one sample). */
  n_peak: number;
  sum_peak_mb: number;
  max_peak_mb: number | null;
  /** The command behind `max_peak_mb`. */
  max_peak_command: string | null;
}

/** A finished group row: totals plus shares and means. */
export interface GroupRow extends GroupTotals {
  readonly name: string;
  /** `total_ms` over the total of all groups of the table. */
  readonly share: number | null;
  readonly mean_ms: number;
  /** Mean window peak over calls that had samples. */
  readonly mean_peak_mb: number | null;
}

/**
 * Pass 3 accumulator: per native tool name (`Bash`, `run_shell_command`, …) and per shell-command
 * category (calls whose canonical tool is `shell`), plus the shell share of all tool time
 * (canonical tool, so it compares across agents). Shares are of Σ call durations, as in the
 * paper's Fig. 2 (uncoalesced/cordon).
 */
export class ToolBreakdown {
  readonly tools = new Map<string, GroupTotals>();
  readonly categories = new Map<string, GroupTotals>();
  total_ms = 0;
  shell_ms = 0;

  constructor(private readonly rules: readonly CompiledRule[]) {}

  /** Adds one call. */
  add(c: ToolCallRow): void {
    this.total_ms += c.duration_ms;
    addTo(this.tools, c.tool_name || c.tool, c);
    if (c.tool === 'shell') {
      this.shell_ms += c.duration_ms;
      addTo(this.categories, categorize(c.command, this.rules), c);
    }
  }

  /** Adds another breakdown's totals (pooling sessions). */
  merge(other: ToolBreakdown): void {
    this.total_ms += other.total_ms;
    this.shell_ms += other.shell_ms;
    for (const [k, g] of other.tools) mergeInto(this.tools, k, g);
    for (const [k, g] of other.categories) mergeInto(this.categories, k, g);
  }

  /** The finished tables, largest time first. */
  result(): ToolTables {
    return {
      total_ms: this.total_ms,
      shell_ms: this.shell_ms,
      shell_share: this.total_ms > 0 ? this.shell_ms / this.total_ms : null,
      tools: rows(this.tools, this.total_ms),
      categories: rows(this.categories, this.shell_ms),
    };
  }
}

/** Finished pass 3 tables. */
export interface ToolTables {
  /** Σ durations of all calls, ms. */
  readonly total_ms: number;
  /** Σ durations of shell calls, ms. */
  readonly shell_ms: number;
  /** `shell_ms / total_ms` (the paper's "Bash share of tool time"). */
  readonly shell_share: number | null;
  readonly tools: GroupRow[];
  /** Shell calls by category; shares are of `shell_ms`. */
  readonly categories: GroupRow[];
}

/** Share of shell time of `category` in `tables`; `null` when there is no shell time. */
export function categoryShare(tables: ToolTables, category: string): number | null {
  if (tables.shell_ms <= 0) return null;
  return (tables.categories.find((r) => r.name === category)?.total_ms ?? 0) / tables.shell_ms;
}

function empty(): GroupTotals {
  return { n: 0, total_ms: 0, n_peak: 0, sum_peak_mb: 0, max_peak_mb: null, max_peak_command: null };
}

function addTo(map: Map<string, GroupTotals>, key: string, c: ToolCallRow): void {
  let g = map.get(key);
  if (!g) map.set(key, (g = empty()));
  g.n++;
  g.total_ms += c.duration_ms;
  if (c.peak_memory_mb !== null) {
    g.n_peak++;
    g.sum_peak_mb += c.peak_memory_mb;
    if (g.max_peak_mb === null || c.peak_memory_mb > g.max_peak_mb) {
      g.max_peak_mb = c.peak_memory_mb;
      g.max_peak_command = c.command;
    }
  }
}

function mergeInto(map: Map<string, GroupTotals>, key: string, o: GroupTotals): void {
  let g = map.get(key);
  if (!g) map.set(key, (g = empty()));
  g.n += o.n;
  g.total_ms += o.total_ms;
  g.n_peak += o.n_peak;
  g.sum_peak_mb += o.sum_peak_mb;
  if (o.max_peak_mb !== null && (g.max_peak_mb === null || o.max_peak_mb > g.max_peak_mb)) {
    g.max_peak_mb = o.max_peak_mb;
    g.max_peak_command = o.max_peak_command;
  }
}

function rows(map: Map<string, GroupTotals>, total: number): GroupRow[] {
  return [...map.entries()]
    .map(([name, g]) => ({ name, ...g, share: total > 0 ? g.total_ms / total : null, mean_ms: g.n ? g.total_ms / g.n : 0, mean_peak_mb: g.n_peak ? g.sum_peak_mb / g.n_peak : null }))
    .sort((a, b) => b.total_ms - a.total_ms || (a.name < b.name ? -1 : 1));
}
