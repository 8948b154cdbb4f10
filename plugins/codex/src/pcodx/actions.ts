import type { LedgerHandle, LedgerRangeRequest, LedgerRole, LedgerSession } from '@cordon/plugin-api';
import { isAbsolute, resolve } from 'node:path';
import { PcodxUsageError } from './errors.js';
import { messageIdsHelper } from './message-ids.js';
import { compactLines, compactManyLines, linesOut, textOut, textPiecesOut, uncompactLines, visibleIdsLine, type Sink } from './output.js';

/**
 * The pcodx commands as plain functions over an open ledger (the Rust pcodx, SichangHe/partial_compact_codex); the
 * oclif classes only parse flags and call these. Errors are `PcodxUsageError` or the ledger's
 * `CORDON_*` errors; nothing is printed for a failed action.
 */

/** The global flags every pcodx command takes besides `--db`. */
export interface SessionFlags {
  /** `--session NAME`. */
  readonly session?: string;
  /** `--cwd DIR`: recorded for created sessions; overrides the stored cwd for `resume`. */
  readonly cwd?: string;
}

const creating = (ledger: LedgerHandle, flags: SessionFlags) => ledger.resolveSession({ id: flags.session, mode: 'create', cwd: flags.cwd && resolve(flags.cwd) });
const existing = (ledger: LedgerHandle, flags: SessionFlags) => ledger.resolveSession({ id: flags.session, mode: 'existing' });

/** Why a tool message cannot be the first of a session (the ledger's own wording). */
export const TOOL_FIRST = 'a tool message records the result of a call: record the assistant message that made the call first (the session has no messages yet)';

/** `init`: `session_id=`, `db_path=`. */
export async function init(ledger: LedgerHandle, flags: SessionFlags, sink: Sink): Promise<LedgerSession> {
  const session = await creating(ledger, flags);
  sink.out(`session_id=${session.id}`);
  sink.out(`db_path=${ledger.path}`);
  return session;
}

/**
 * `record`: one message; `session_id=`, `message_id=`, `attached_to=` (only when a tool result
 * joined the compaction hiding its call), `visible_ids=`.
 */
export async function record(ledger: LedgerHandle, flags: SessionFlags & { role: LedgerRole; text: string; source?: string }, sink: Sink): Promise<void> {
  // A tool result cannot open a session (its call comes first): refused before the session is made.
  if (flags.role === 'tool' && !(flags.session !== undefined ? await ledger.getSession(flags.session) : await ledger.lastSession())) throw new PcodxUsageError(TOOL_FIRST);
  const session = await creating(ledger, flags);
  const [message] = await ledger.record(session.id, [{ role: flags.role, text: flags.text, source: flags.source ?? null }]);
  const visible = await ledger.visibleIds(session.id);
  sink.out(`session_id=${session.id}`);
  sink.out(`message_id=${message!.id}`);
  if (message!.attachedTo) sink.out(`attached_to=${message!.attachedTo}`);
  sink.out(visibleIdsLine(visible));
}

/**
 * `turn`: records a user prompt (source `cli-turn`); on stderr `session_id=`,
 * `prompt_message_id=`, `future_context_source=pcodx-render`; on stdout the render.
 */
export async function turn(ledger: LedgerHandle, flags: SessionFlags & { text: string }, sink: Sink): Promise<void> {
  const session = await creating(ledger, flags);
  const [message] = await ledger.record(session.id, [{ role: 'user', text: flags.text, source: 'cli-turn' }]);
  sink.err(`session_id=${session.id}`);
  sink.err(`prompt_message_id=${message!.id}`);
  sink.err('future_context_source=pcodx-render');
  await textPiecesOut(sink, (write) => ledger.renderTo(session.id, write));
}

/**
 * `compact` (one range) and `compact-many` (several, one transaction). Under `dryRun` the
 * `key=value` lines go to stderr and the render that would result to stdout; nothing is stored.
 */
export async function compact(ledger: LedgerHandle, flags: SessionFlags & { ranges: readonly LedgerRangeRequest[]; many: boolean; dryRun?: boolean }, sink: Sink): Promise<void> {
  const session = await existing(ledger, flags);
  const result = await ledger.compact(session.id, flags.ranges, { dryRun: flags.dryRun === true });
  const lines = flags.many ? compactManyLines(result) : compactLines(result);
  if (!flags.dryRun) {
    for (const line of lines) sink.out(line);
    return;
  }
  for (const line of lines) sink.err(line);
  textOut(sink, result.render ?? '');
}

/** `uncompact cmpN`: undoes one compaction. */
export async function uncompact(ledger: LedgerHandle, flags: SessionFlags & { compactionId: string }, sink: Sink): Promise<void> {
  const session = await existing(ledger, flags);
  for (const line of uncompactLines(await ledger.uncompact(session.id, flags.compactionId))) sink.out(line);
}

/** `ids`: `session_id=`, then one visible id per line. */
export async function ids(ledger: LedgerHandle, flags: SessionFlags, sink: Sink): Promise<void> {
  const session = await existing(ledger, flags);
  sink.out(`session_id=${session.id}`);
  sink.listed?.();
  // Printed a piece at a time as the ledger hands them over: 100,000 ids are never held at once.
  await ledger.visibleIdsTo(session.id, (piece) => linesOut(sink, piece));
}

/** `current-session-message-ids`: the helper text of the Rust pcodx, SichangHe/partial_compact_codex. */
export async function messageIds(ledger: LedgerHandle, flags: SessionFlags, sink: Sink): Promise<void> {
  const session = await existing(ledger, flags);
  textOut(sink, messageIdsHelper(await ledger.visibleIds(session.id)).replace(/\n$/, ''));
}

/** `show`: the render, or with `roles` the render with a role line above each block. */
export async function show(ledger: LedgerHandle, flags: SessionFlags & { roles?: boolean }, sink: Sink): Promise<void> {
  const session = await existing(ledger, flags);
  // Either render goes out in pieces as the ledger reads them (written as they come where the sink can).
  if (flags.roles) await textPiecesOut(sink, (write) => ledger.renderWithRolesTo(session.id, write));
  else await textPiecesOut(sink, (write) => ledger.renderTo(session.id, write));
}

/** The session and working directory an interactive loop runs in. */
export interface LoopTarget {
  readonly session: LedgerSession;
  /** Absolute; `/record-file` resolves relative paths against it. */
  readonly cwd: string;
}

/**
 * `resume` before its loop: exactly one of `--session` / `--last`; never creates a session;
 * an optional prompt is recorded (source `cli-resume`). On stderr `prompt_message_id=` (when a
 * prompt was given), `session_id=`, `visible_ids=`; on stdout the render. The loop's cwd is
 * `--cwd`, else the stored cwd, which must be absolute.
 */
export async function resume(ledger: LedgerHandle, flags: SessionFlags & { last?: boolean; text?: string }, sink: Sink): Promise<LoopTarget> {
  checkResumeSelector(flags);
  const session = await ledger.resolveSession({ id: flags.session, mode: 'existing' });
  const cwd = loopCwd(session, flags.cwd);
  if (flags.text !== undefined) {
    const [message] = await ledger.record(session.id, [{ role: 'user', text: flags.text, source: 'cli-resume' }]);
    sink.err(`prompt_message_id=${message!.id}`);
  }
  sink.err(`session_id=${session.id}`);
  sink.err(visibleIdsLine(await ledger.visibleIds(session.id)));
  // The render goes out in pieces as the ledger reads them, as `show` prints it.
  await textPiecesOut(sink, (write) => ledger.renderTo(session.id, write));
  return { session, cwd };
}

/** `resume` takes exactly one of `--session` / `--last`; checked before the ledger is opened. */
export function checkResumeSelector(flags: { readonly session?: string; readonly last?: boolean }): void {
  if ((flags.session !== undefined) === (flags.last === true)) throw new PcodxUsageError('pass exactly one of --session or --last to resume');
}

/** `interactive` before its loop: finds or creates the session and records an optional first prompt (source `cli-interactive`). */
export async function interactiveStart(ledger: LedgerHandle, flags: SessionFlags & { text?: string }, sink: Sink): Promise<LoopTarget> {
  const session = await creating(ledger, flags);
  const cwd = loopCwd(session, flags.cwd);
  if (flags.text !== undefined) {
    const [message] = await ledger.record(session.id, [{ role: 'user', text: flags.text, source: 'cli-interactive' }]);
    sink.out(`prompt_message_id=${message!.id}`);
  }
  return { session, cwd };
}

function loopCwd(session: LedgerSession, override: string | undefined): string {
  if (override !== undefined) return resolve(override);
  if (!isAbsolute(session.cwd)) throw new PcodxUsageError(`session \`${session.id}\` has a relative cwd \`${session.cwd}\`; pass --cwd DIR`);
  return session.cwd;
}
