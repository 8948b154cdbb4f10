import { monotonicMs } from '../util/clock.js';

/** How tapable invokes a tap: plain return, node-style callback, or promise. */
export type TapType = 'sync' | 'async' | 'promise';

/** Callbacks around one invocation of a tap function. */
export interface TapAround {
  /** Maps an error the tap raised to the error the hook should see. */
  readonly mapError?: (error: unknown) => unknown;
  /** Called once when the invocation settles (ok or not), with its duration in ms. */
  readonly settled?: (ms: number, failed: boolean) => void;
}

type AnyFn = (...args: any[]) => any;

/**
 * Wraps a tap function of any tapable type so that errors are mapped and the duration is
 * reported, while keeping the calling convention tapable expects for that type (a promise for
 * `promise` taps, the trailing callback for `async` taps).
 */
export function wrapTap<F extends AnyFn>(type: TapType, fn: F, around: TapAround): F {
  const mapError = around.mapError ?? ((e: unknown) => e);
  const settled = around.settled ?? (() => undefined);
  if (type === 'async') {
    return function (this: unknown, ...args: any[]) {
      const callback = args.pop() as (err?: unknown, result?: unknown) => void;
      const started = monotonicMs();
      try {
        fn.call(this, ...args, (err: unknown, result: unknown) => {
          settled(monotonicMs() - started, err != null);
          if (err != null) callback(mapError(err));
          else callback(null, result);
        });
      } catch (error) {
        settled(monotonicMs() - started, true);
        callback(mapError(error));
      }
    } as F;
  }
  if (type === 'promise') {
    return function (this: unknown, ...args: any[]) {
      const started = monotonicMs();
      let pending: unknown;
      try {
        pending = fn.apply(this, args);
      } catch (error) {
        settled(monotonicMs() - started, true);
        return Promise.reject(mapError(error));
      }
      return Promise.resolve(pending).then(
        (value) => {
          settled(monotonicMs() - started, false);
          return value;
        },
        (error: unknown) => {
          settled(monotonicMs() - started, true);
          throw mapError(error);
        },
      );
    } as F;
  }
  return function (this: unknown, ...args: any[]) {
    const started = monotonicMs();
    try {
      const value = fn.apply(this, args);
      settled(monotonicMs() - started, false);
      return value;
    } catch (error) {
      settled(monotonicMs() - started, true);
      throw mapError(error);
    }
  } as F;
}
