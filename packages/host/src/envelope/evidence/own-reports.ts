import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { readRegularFileIfExists, writeFileAtomic } from '../../io/index.js';
import { sha256Hex } from '../../util/hash.js';
import { discoverRepo, type RepoLocation } from '../git/repo.js';

/**
 * Reports cordon wrote at the user's request (`check --format sarif --out cordon.sarif`,
 * `analyze --out report.md`) inside a work tree are not the agent's change: the next
 * `check` would audit them (with an armed envelope: an untracked file, counted and judged by the
 * policy; in CI: an untracked file that makes `check --base` refuse to run verifiers). Each one
 * is recorded in the work tree's git directory, `<git-dir>/cordon-reports.json`, as its path and
 * the SHA-256 of the bytes written; a listed untracked file whose content is still exactly that
 * is left out of the audit. A file changed since (by the agent or anyone) is audited as any other.
 * Like `.cordon/` and the index, the record can be forged by a process that edits it by hand.
 */
const FILE = 'cordon-reports.json';
/** Most reports remembered per work tree (the oldest go first). */
const MAX_REPORTS = 64;

interface ReportsRecord {
  readonly version: 1;
  /** Work-tree relative path (`/` separators) → SHA-256 hex of the report's bytes. */
  readonly reports: Record<string, string>;
}

function sha256(bytes: Uint8Array): string {
  return sha256Hex(bytes);
}

function readRecord(gitDir: string): Record<string, string> {
  try {
    const raw = readRegularFileIfExists(join(gitDir, FILE), { maxBytes: 1 << 20, links: 'never' });
    if (!raw) return {};
    const parsed = JSON.parse(raw.toString('utf8')) as Partial<ReportsRecord>;
    if (parsed?.version !== 1 || typeof parsed.reports !== 'object' || parsed.reports === null) return {};
    return Object.fromEntries(Object.entries(parsed.reports).filter((e): e is [string, string] => typeof e[1] === 'string' && /^[0-9a-f]{64}$/.test(e[1])));
  } catch {
    // A damaged record only means reports are audited again.
    return {};
  }
}

/**
 * Remembers that cordon wrote `bytes` to `target` (an absolute path, the file actually written)
 * when it lies inside a git work tree; nothing when it does not. Never throws: the report is
 * written already, and failing to remember it only means the next check audits it.
 */
export async function rememberReport(target: string, bytes: Uint8Array): Promise<void> {
  try {
    const dir = dirname(target);
    if (!existsSync(dir)) return;
    const loc = await discoverRepo(dir);
    const rel = relative(loc.root, target);
    if (rel === '' || rel.startsWith('..') || rel.split(sep).includes('.git')) return;
    const reports = readRecord(loc.gitDir);
    const key = rel.split(sep).join('/');
    delete reports[key];
    reports[key] = sha256(bytes);
    const kept = Object.entries(reports).slice(-MAX_REPORTS);
    writeFileAtomic(join(loc.gitDir, FILE), `${JSON.stringify({ version: 1, reports: Object.fromEntries(kept) } satisfies ReportsRecord)}\n`);
  } catch {
    // Not a work tree, git missing, a read-only git directory: nothing to remember.
  }
}

/**
 * A predicate over untracked paths as git lists them (work-tree relative): true for a report
 * cordon wrote whose bytes are unchanged. Reads the record once; hashes only listed reports.
 */
export function ownReports(loc: Pick<RepoLocation, 'root' | 'gitDir'>): (path: string) => boolean {
  const reports = readRecord(loc.gitDir);
  if (Object.keys(reports).length === 0) return () => false;
  return (path) => {
    const want = reports[path];
    if (!want) return false;
    try {
      const bytes = readRegularFileIfExists(join(loc.root, path), { maxBytes: 256 << 20, links: 'never' });
      return bytes !== undefined && sha256(bytes) === want;
    } catch {
      return false;
    }
  };
}
