import { join } from 'node:path';
import { ensurePrivateDir } from '../io/private-dir.js';
import { writeFileAtomic } from '../io/atomic-write.js';
import { readRegularFileIfExists } from '../io/safe-read.js';

/**
 * The agents whose user-scope hooks the user took out on purpose (`cordon uninstall-hooks --write`),
 * so `cordon doctor` says so instead of failing on an agent in use without hooks, and `install-hooks
 * --all` leaves them out. `install-hooks --agent X --write` (user scope) takes X off the list.
 * Lives in `<config>/hooks-removed.json`, `{"version": 1, "agents": {"<agent>": {"removed_at": "<ISO
 * 8601 time>"}}}`, written atomically, 0600. A file that is missing, unreadable or damaged reads as
 * empty: doctor then reports what it finds, as before the choice existed.
 */
export type RemovedHooks = Readonly<Record<string, { readonly removed_at: string }>>;

/** The file's name in cordon's config directory. */
export const REMOVED_HOOKS_FILE = 'hooks-removed.json';

/** Reads the list (see {@link RemovedHooks}); never throws. */
export function readRemovedHooks(configDir: string): RemovedHooks {
  try {
    const raw = readRegularFileIfExists(join(configDir, REMOVED_HOOKS_FILE), { maxBytes: 1 << 20 });
    const agents = raw ? (JSON.parse(raw.toString('utf8')) as { agents?: unknown }).agents : undefined;
    const out: Record<string, { removed_at: string }> = {};
    if (agents && typeof agents === 'object' && !Array.isArray(agents)) {
      for (const [agent, entry] of Object.entries(agents)) {
        const at = (entry as { removed_at?: unknown } | null)?.removed_at;
        if (typeof at === 'string') out[agent] = { removed_at: at };
      }
    }
    return out;
  } catch {
    return {};
  }
}

/**
 * Puts `removed` on the list (at `now`) and takes `restored` off it, writing the file only when
 * the list changes (an empty list removes nothing: the file stays, holding `{}`).
 * @returns the file's path when it was written, else `undefined`.
 * @throws the write's error (EACCES, ENOSPC), for the caller to roll back.
 */
export function updateRemovedHooks(configDir: string, change: { readonly removed?: readonly string[]; readonly restored?: readonly string[] }, now = new Date()): string | undefined {
  const before = readRemovedHooks(configDir);
  const after: Record<string, { removed_at: string }> = { ...before };
  for (const agent of change.restored ?? []) delete after[agent];
  for (const agent of change.removed ?? []) after[agent] = before[agent] ?? { removed_at: now.toISOString() };
  const same = Object.keys(after).length === Object.keys(before).length && Object.keys(after).every((a) => before[a] !== undefined);
  if (same) return undefined;
  const path = join(configDir, REMOVED_HOOKS_FILE);
  ensurePrivateDir(configDir);
  writeFileAtomic(path, `${JSON.stringify({ version: 1, agents: after }, null, 2)}\n`, { mode: 0o600 });
  return path;
}
