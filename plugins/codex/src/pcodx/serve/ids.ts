import { idKey, type RpcId } from './frames.js';

/**
 * The three id namespaces one client connection meets (the Codex app-server protocol, docs/references.md#codex-app-server-protocol):
 *
 * 1. **client requests** keep the client's own ids upstream (numbers, `"initialize"`, UUIDs …);
 *    the proxy only remembers which are pending, so it can answer them when the upstream dies;
 * 2. **server requests** (approvals, `item/tool/call`) keep the upstream's ids, which count from
 *    0 on each connection; the client's replies are matched against the pending set, and a reply
 *    to an id the upstream never asked is dropped, not forwarded;
 * 3. **proxy requests** (fresh-thread `thread/start`, `thread/inject_items`) use ids beginning
 *    with {@link PROXY_ID_PREFIX}; a client request whose id begins with it is refused, so the
 *    namespaces can never collide upstream.
 */
export const PROXY_ID_PREFIX = 'pcodx:';

/** True for an id only the proxy may use upstream. */
export function isReservedId(id: RpcId): boolean {
  return typeof id === 'string' && id.startsWith(PROXY_ID_PREFIX);
}

/** A pending request of one namespace: its id and method, with optional per-request data. */
export interface Pending<T> {
  readonly id: RpcId;
  readonly method: string;
  readonly data: T;
}

/** Pending requests of one namespace, keyed by typed id. */
export class PendingTable<T = undefined> {
  readonly #entries = new Map<string, Pending<T>>();

  /** Remembers a request; false when that id is already pending (the caller refuses it). */
  add(id: RpcId, method: string, data: T): boolean {
    const key = idKey(id);
    if (this.#entries.has(key)) return false;
    this.#entries.set(key, { id, method, data });
    return true;
  }

  /** Takes the pending request `id` out, or undefined when none is pending. */
  take(id: RpcId): Pending<T> | undefined {
    const key = idKey(id);
    const entry = this.#entries.get(key);
    if (entry) this.#entries.delete(key);
    return entry;
  }

  /** The pending request `id`, left in place. */
  get(id: RpcId): Pending<T> | undefined {
    return this.#entries.get(idKey(id));
  }

  has(id: RpcId): boolean {
    return this.#entries.has(idKey(id));
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Removes and returns every pending request (oldest first). */
  drain(): Pending<T>[] {
    const all = [...this.#entries.values()];
    this.#entries.clear();
    return all;
  }
}

/** Issues proxy request ids: `pcodx:1`, `pcodx:2`, … per connection. */
export class ProxyIds {
  #next = 0;
  next(): string {
    this.#next += 1;
    return `${PROXY_ID_PREFIX}${this.#next}`;
  }
}
