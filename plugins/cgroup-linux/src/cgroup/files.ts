import { readFileSync, writeFileSync } from 'node:fs';
import type { PressureTotals } from '@cordon/plugin-api';

/** A small kernel file read once: its text, or why it could not be read (`ENOENT`, `EACCES`, `EOPNOTSUPP` …). */
export type FileRead = { readonly text: string; readonly code?: undefined } | { readonly text?: undefined; readonly code: string };

/** Reads the small kernel file `path` ({@link FileRead}); never throws. */
export function readFile(path: string): FileRead {
  try {
    return { text: readFileSync(path, 'utf8') };
  } catch (error) {
    return { code: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
}

/** The text of a small kernel file, or `undefined` when it cannot be read (absent, EACCES, EOPNOTSUPP). */
export function readText(path: string): string | undefined {
  return readFile(path).text;
}

/** Why reading `path` fails (`ENOENT`, `EOPNOTSUPP` …), or `undefined` when it reads. */
export function readError(path: string): string | undefined {
  return readFile(path).code;
}

/**
 * Writes `value` to a cgroup interface file in one write(2), as the kernel wants (cgroup-v2.rst:
 * one pid or one setting per write). Returns the errno code when it fails, else `undefined`.
 */
export function writeValue(path: string, value: string): string | undefined {
  try {
    writeFileSync(path, value);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
}

/**
 * Parses a flat-keyed cgroup file (`memory.events`, `cpu.stat`: one `key value` per line) into
 * numbers; lines that are not `key integer` are skipped. `undefined` text gives `{}`.
 */
export function parseKeyed(text: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of (text ?? '').split('\n')) {
    const m = /^(\S+)\s+(\d+)$/.exec(line.trim());
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

/**
 * Parses a PSI file (kernel docs, accounting/psi.rst: `some avg10=X avg60=Y avg300=Z total=T`, and a `full` line)
 * into the two `total` values in µs. A missing `full` line (system `cpu` before 5.13) reads 0;
 * text without a `some` line gives `null`.
 */
export function parsePressure(text: string | undefined): PressureTotals | null {
  if (text === undefined) return null;
  const total = (kind: 'some' | 'full'): number | undefined => {
    const m = new RegExp(`^${kind} .*\\btotal=(\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const someUs = total('some');
  if (someUs === undefined) return null;
  return { someUs, fullUs: total('full') ?? 0 };
}

/** A `memory.max` / `memory.high` value in bytes; `null` for `max` or anything unreadable. */
export function parseLimit(text: string | undefined): number | null {
  const t = text?.trim();
  return t !== undefined && /^\d+$/.test(t) ? Number(t) : null;
}

/** The words of a space-separated list file (`cgroup.controllers`, `cgroup.subtree_control`). */
export function words(text: string | undefined): string[] {
  return (text ?? '').split(/\s+/).filter(Boolean);
}
