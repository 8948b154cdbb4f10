import type { RpcMessage } from './frames.js';

/**
 * Client requests whose `threadId` names the thread a turn runs on (research/pcodx-codex.md §4
 * point 2): only these are sent to the fresh upstream thread. Everything else (`thread/read`,
 * `thread/name/set`, `thread/turns/list`, `thread/items/list`, `thread/unsubscribe` …) stays on
 * the durable thread, because ephemeral threads reject those calls (§2.3).
 */
export const TURN_SCOPED_METHODS: ReadonlySet<string> = new Set(['turn/start', 'turn/steer', 'turn/interrupt']);

/**
 * The compaction state every connection of one serve shares: the pcodx session it is bound to and
 * a generation that goes up with each successful compaction. A thread whose upstream history was
 * seeded at an older generation is stale.
 */
export class SessionState {
  #generation = 0;
  constructor(readonly sessionId: string) {}

  get generation(): number {
    return this.#generation;
  }

  /** Called after a successful `partial_compact`: every mapped thread becomes stale. */
  compacted(): void {
    this.#generation += 1;
  }
}

/** One client-visible primary thread and where its turns go upstream. */
export interface MappedThread {
  /** The id the client knows (the durable upstream thread it started, resumed or forked). */
  readonly clientId: string;
  /** Where turn-scoped requests go now: the durable thread, or the latest fresh ephemeral one. */
  upstreamId: string;
  /** `thread/start` params for a fresh thread (pcodx tools and instructions included). */
  readonly freshParams: Record<string, unknown>;
  /**
   * The session generation the upstream history matches, or -1 when it matches none (a resumed
   * or forked thread, or a new thread in a session with history): its next turn needs a fresh thread.
   */
  seeded: number;
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

  constructor(private readonly session: SessionState) {}

  /** Maps a primary thread the client just started, resumed or forked. */
  add(clientId: string, freshParams: Record<string, unknown>, inSync: boolean): MappedThread {
    const thread: MappedThread = { clientId, upstreamId: clientId, freshParams, seeded: inSync ? this.session.generation : -1 };
    this.#byClient.set(clientId, thread);
    return thread;
  }

  get(clientId: unknown): MappedThread | undefined {
    return typeof clientId === 'string' ? this.#byClient.get(clientId) : undefined;
  }

  /** True when the thread's next turn must run on a fresh upstream thread. */
  isStale(thread: MappedThread): boolean {
    return thread.seeded !== this.session.generation;
  }

  /** Points the thread's turns at a freshly seeded upstream thread. */
  moveTo(thread: MappedThread, upstreamId: string): void {
    thread.upstreamId = upstreamId;
    thread.seeded = this.session.generation;
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

function replaceDeep(value: unknown, map: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return map.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => replaceDeep(v, map));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = replaceDeep(v, map);
    return out;
  }
  return value;
}
