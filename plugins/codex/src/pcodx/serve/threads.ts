import type { LedgerRecordInput } from '@cordon/plugin-api';
import type { RpcMessage } from './frames.js';

/**
 * Client requests whose `threadId` names the thread a turn runs on (docs/pcodx.md
 * point 2): only these are sent to the fresh upstream thread. Everything else (`thread/read`,
 * `thread/name/set`, `thread/turns/list`, `thread/items/list`, `thread/unsubscribe` …) stays on
 * the durable thread, because ephemeral threads reject those calls (Codex app-server protocol).
 */
export const TURN_SCOPED_METHODS: ReadonlySet<string> = new Set(['turn/start', 'turn/steer', 'turn/interrupt']);

/**
 * What every connection of one serve shares: the pcodx session it is bound to, and the turns whose
 * ingestion failed (kept in order to be written before anything else of their session).
 *
 * Whether a live thread is in step with the ledger is never tracked here: any process may change
 * the ledger (`cordon pcodx compact` from another terminal, another serve), so each `turn/start`
 * compares the ledger's visible ids with those the thread's upstream history holds
 * ({@link MappedThread.expected}).
 */
export class SessionState {
  /** Turns not yet in the ledger, per ledger session, oldest first. */
  readonly unsaved = new Map<string, Array<readonly LedgerRecordInput[]>>();
  constructor(readonly sessionId: string) {}
}

/** One client-visible primary thread and where its turns go upstream. */
export interface MappedThread {
  /** The id the client knows (the durable upstream thread it started, resumed or forked). */
  readonly clientId: string;
  /** The ledger session the thread's turns go to (the serve's, or a fork's own). */
  readonly sessionId: string;
  /** Where turn-scoped requests go now: the durable thread, or the latest fresh ephemeral one. */
  upstreamId: string;
  /** `thread/start` params for a fresh thread (pcodx tools and instructions included). */
  readonly freshParams: Record<string, unknown>;
  /**
   * The ledger's visible ids the upstream history matches, or undefined when it matches no ledger
   * state (a resumed or forked thread, or a new thread in a session with history). A thread whose
   * ledger shows anything else at its next `turn/start` runs that turn on a fresh thread.
   */
  expected: readonly string[] | undefined;
}

/**
 * Client thread ids mapped to upstream threads, for one connection. Rewrites go one way each:
 * client→upstream only `threadId` of {@link TURN_SCOPED_METHODS}; upstream→client every string
 * equal to a fresh thread's id becomes the client's id (ids are UUIDs, so equality is safe).
 */
export class ThreadMap {
  readonly #byClient = new Map<string, MappedThread>();
  /** Fresh upstream id → client id, for the way back. */
  readonly #back = new Map<string, string>();

  /** Maps a primary thread the client just started, resumed or forked; `expected`: see {@link MappedThread.expected}. */
  add(clientId: string, sessionId: string, freshParams: Record<string, unknown>, expected: readonly string[] | undefined): MappedThread {
    const thread: MappedThread = { clientId, sessionId, upstreamId: clientId, freshParams, expected };
    this.#byClient.set(clientId, thread);
    return thread;
  }

  get(clientId: unknown): MappedThread | undefined {
    return typeof clientId === 'string' ? this.#byClient.get(clientId) : undefined;
  }

  /** True when the thread's upstream history is not the ledger's `visibleIds` now: its next turn must run on a fresh thread. */
  isStale(thread: MappedThread, visibleIds: readonly string[]): boolean {
    const expected = thread.expected;
    return expected === undefined || expected.length !== visibleIds.length || expected.some((id, i) => id !== visibleIds[i]);
  }

  /** Points the thread's turns at a fresh upstream thread seeded with the ledger entries `seededIds`. */
  moveTo(thread: MappedThread, upstreamId: string, seededIds: readonly string[]): void {
    thread.upstreamId = upstreamId;
    thread.expected = seededIds;
    this.#back.set(upstreamId, thread.clientId);
  }

  /** The mapped thread an upstream thread id belongs to (durable or fresh). */
  byUpstream(upstreamId: unknown): MappedThread | undefined {
    if (typeof upstreamId !== 'string') return undefined;
    return this.#byClient.get(this.#back.get(upstreamId) ?? upstreamId);
  }

  /** True when `upstreamId` is one of the proxy's fresh threads. */
  isFresh(upstreamId: unknown): boolean {
    return typeof upstreamId === 'string' && this.#back.has(upstreamId);
  }

  /** True when `text` may name a fresh thread (a cheap check before parsing for a rewrite). */
  mentionsFresh(text: string): boolean {
    for (const id of this.#back.keys()) if (text.includes(id)) return true;
    return false;
  }

  /** `message` with every string equal to a fresh upstream id replaced by its client id. */
  toClient<T extends RpcMessage>(message: T): T {
    return this.#back.size === 0 ? message : (replaceDeep(message, this.#back) as T);
  }
}

/**
 * `value` with every string `map` holds replaced by its mapping. Objects are copied into objects
 * without a prototype: a key `__proto__` (JSON.parse makes it an own property; the model writes
 * the keys of a tool call's arguments) stays a key, where assigning it to a plain object set the
 * copy's prototype and dropped it from the frame.
 */
function replaceDeep(value: unknown, map: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return map.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => replaceDeep(v, map));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value)) out[k] = replaceDeep(v, map);
    return out;
  }
  return value;
}
