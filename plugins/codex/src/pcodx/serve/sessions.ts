import { cutText, type LedgerHandle, type LedgerRecordInput } from '@cordon/plugin-api';
import { turnRecordOf } from './ingest.js';

/** Longest session name the ledger accepts (its `isValidSessionName`). */
const MAX_SESSION_NAME = 200;
const FORK_MARK = '~fork-';

/**
 * The ledger session of the thread `threadId` forked off a thread of session `base`:
 * `<base>~fork-<threadId>` (the base cut so the name stays within 200 UTF-16 units, never inside a
 * character: `cutText`). Named after the
 * fork's thread, so a later serve resuming that thread finds its branch again.
 */
export function forkSessionId(base: string, threadId: string): string {
  const tail = `${FORK_MARK}${threadId}`;
  const root = base.includes(FORK_MARK) ? base.slice(0, base.indexOf(FORK_MARK)) : base;
  return `${cutText(root, Math.max(0, MAX_SESSION_NAME - tail.length))}${tail}`;
}

/**
 * The session a resumed thread's turns go to: the fork session named after it when one exists
 * (the thread was forked through a serve of `base`), else `base`.
 */
export async function sessionOfThread(ledger: LedgerHandle, base: string, threadId: string): Promise<string> {
  const fork = forkSessionId(base, threadId);
  return (await ledger.getSession(fork)) ? fork : base;
}

/**
 * Makes the ledger session of a forked thread: a new session holding the source session's
 * model-visible history at the fork (each visible message as itself, each active compaction as one
 * message of its role holding its summary, sources kept or `pcodx-fork:<from session>:<id>`), so
 * the branches never share rows again. Returns the new session's id; a session that already
 * exists (the same fork seen twice) is left as it is.
 */
export async function forkSession(ledger: LedgerHandle, fromSession: string, threadId: string, cwd: string | undefined): Promise<string> {
  const id = forkSessionId(fromSession, threadId);
  if (await ledger.getSession(id)) return id;
  const entries = await ledger.visible(fromSession);
  await ledger.resolveSession({ id, mode: 'create', cwd });
  const rows: LedgerRecordInput[] = entries.map((e) =>
    e.kind === 'message'
      ? { role: e.role, text: e.text, source: e.message.source ?? `pcodx-fork:${fromSession}:${e.id}` }
      : { role: e.role, text: e.text, source: `pcodx-fork:${fromSession}:${e.id}` },
  );
  if (rows.length) await ledger.record(id, rows);
  return id;
}

/**
 * The completed turns of a resumed thread as ledger rows, when the session holds nothing yet: a
 * conversation started without pcodx keeps its history once the serve routes it to a fresh thread
 * seeded from the ledger. The turns come from the `thread/resume` response (`thread.turns`) or,
 * when the client asked for none there (`codex exec` resumes with `excludeTurns: true`), from
 * `readTurns` (the app-server's `thread/read` with `includeTurns`). A session with any entry is
 * left alone (its turns were ingested as they ran; importing again would duplicate them).
 * Returns the ids recorded.
 */
export async function importResumedTurns(ledger: LedgerHandle, sessionId: string, clientThreadId: string, thread: unknown, readTurns: () => Promise<unknown>): Promise<string[]> {
  if ((await ledger.visibleIds(sessionId)).length > 0) return [];
  let turns = turnsOf(thread);
  if (turns.length === 0) turns = turnsOf(await readTurns());
  const rows = turns.flatMap((t) => turnRecordOf(clientThreadId, t)?.rows() ?? []);
  if (rows.length === 0 || (await ledger.visibleIds(sessionId)).length > 0) return [];
  return (await ledger.record(sessionId, rows)).map((m) => m.id);
}

function turnsOf(thread: unknown): unknown[] {
  return thread !== null && typeof thread === 'object' && Array.isArray((thread as { turns?: unknown }).turns) ? (thread as { turns: unknown[] }).turns : [];
}

/**
 * Stores the developer instructions a client gave at `thread/start` with the session, as a
 * `developer` message (source `codex-app-server:<thread>:developer-instructions`), so every fresh
 * thread seeded from the ledger gets them again, after a compaction or an exit and resume (plain
 * Codex keeps them in the thread's own history). Not stored again while the same text is the
 * session's latest visible developer message. Returns the ids recorded.
 */
export async function recordInstructions(ledger: LedgerHandle, sessionId: string, clientThreadId: string, text: string): Promise<string[]> {
  const entries = await ledger.visible(sessionId);
  const latest = [...entries].reverse().find((e) => e.role === 'developer');
  if (latest?.text === text) return [];
  return (await ledger.record(sessionId, [{ role: 'developer', text, source: `codex-app-server:${clientThreadId}:developer-instructions` }])).map((m) => m.id);
}
