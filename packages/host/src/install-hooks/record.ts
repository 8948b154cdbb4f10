import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { ensurePrivateDir } from '../io/private-dir.js';
import { writeFileAtomic } from '../io/atomic-write.js';
import { readRegularFileIfExists } from '../io/safe-read.js';

/**
 * What install-hooks remembers about one file it wrote, so uninstall-hooks can give back exactly
 * what was there (issue: uninstall deleted a `{}` that existed before install).
 */
export interface InstallRecordEntry {
  /** The agent whose install wrote it. */
  readonly agent: string;
  /** The file's bytes before cordon's first install touched it; `null` when install created the file. */
  readonly original: string | null;
  /** SHA-256 (hex) of what cordon last wrote; a file whose content no longer hashes to this was changed by someone else. */
  readonly written: string;
  /** Directories install created for the file (outermost first), removed by uninstall when it deletes the file and they are empty. */
  readonly createdDirs?: readonly string[];
}

/** The record: absolute config path → entry. Lives in `<dataDir>/install-hooks.json`, 0600 (originals can hold keys). */
export type InstallRecord = Record<string, InstallRecordEntry>;

const FILE = 'install-hooks.json';
const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** SHA-256 hex of a file's text. */
export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function isEntry(value: unknown): value is InstallRecordEntry {
  const v = value as InstallRecordEntry | null;
  return (
    !!v &&
    typeof v.agent === 'string' &&
    (v.original === null || typeof v.original === 'string') &&
    typeof v.written === 'string' &&
    (v.createdDirs === undefined || (Array.isArray(v.createdDirs) && v.createdDirs.every((d) => typeof d === 'string')))
  );
}

/** Reads the record; an absent or unreadable one is empty (uninstall then only removes cordon's entries and never deletes a file). */
export function readInstallRecord(dataDir: string): InstallRecord {
  try {
    const raw = readRegularFileIfExists(join(dataDir, FILE), { maxBytes: MAX_RECORD_BYTES });
    const parsed = raw ? (JSON.parse(raw.toString('utf8')) as { files?: unknown }) : undefined;
    const out: InstallRecord = {};
    if (parsed?.files && typeof parsed.files === 'object') for (const [path, entry] of Object.entries(parsed.files)) if (isEntry(entry)) out[path] = entry;
    return out;
  } catch {
    return {};
  }
}

/** Saves the record atomically, owner-only. */
export function writeInstallRecord(dataDir: string, record: InstallRecord): void {
  ensurePrivateDir(dataDir);
  writeFileAtomic(join(dataDir, FILE), JSON.stringify({ version: 1, files: record }, null, 2) + '\n', { mode: 0o600 });
}

/**
 * The entry after install wrote `after` over `before` at a path: an unbroken chain (the file
 * still holds what cordon last wrote) keeps the first original; otherwise `before` becomes the
 * original (uninstall checks that it holds nothing of cordon's before restoring it).
 */
export function recordInstallWrite(previous: InstallRecordEntry | undefined, agent: string, before: string | undefined, after: string, createdDirs: readonly string[] = []): InstallRecordEntry {
  const dirs = [...(previous?.createdDirs ?? []), ...createdDirs];
  const withDirs = dirs.length ? { createdDirs: dirs } : {};
  if (previous && before !== undefined && textHash(before) === previous.written) return { ...previous, written: textHash(after), ...withDirs };
  return { agent, original: before ?? null, written: textHash(after), ...withDirs };
}

/** True when `current` (the file's text now; `undefined` when gone) is what cordon last wrote per `entry`. */
export function untouchedSince(entry: InstallRecordEntry | undefined, current: string | undefined): entry is InstallRecordEntry {
  return entry !== undefined && current !== undefined && textHash(current) === entry.written;
}
