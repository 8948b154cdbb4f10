import { constants } from 'node:os';
import { INTERRUPTS } from '../../process/interrupt.js';

/** The signals that end an attempt early: Ctrl-C, a CI cancellation, a closed terminal (the interrupts of src/process/interrupt.ts). */
export const INTERRUPT_SIGNALS = INTERRUPTS;

/**
 * Catches {@link INTERRUPT_SIGNALS} while `run`/`resume` hold the lock, so cordon, not the
 * default handler, decides what happens: the attempt's process tree is ended, phase
 * `interrupted` is persisted, and only then is the lock released (the reference recorded
 * `interrupted` but left Claude running, docs/envelopes.md). Later signals while that
 * cleanup runs are absorbed. Call {@link InterruptTrap.dispose} when the locked section ends.
 */
export class InterruptTrap {
  #signal: NodeJS.Signals | undefined;
  readonly #listeners: Array<(signal: NodeJS.Signals) => void> = [];
  readonly #handler = (signal: NodeJS.Signals) => {
    if (this.#signal) return;
    this.#signal = signal;
    for (const listener of this.#listeners.splice(0)) listener(signal);
  };

  constructor() {
    for (const signal of INTERRUPT_SIGNALS) process.on(signal, this.#handler);
  }

  /** The first signal received, or undefined. */
  get signal(): NodeJS.Signals | undefined {
    return this.#signal;
  }

  /** Calls `listener` on the first signal (at once if one came already). */
  onInterrupt(listener: (signal: NodeJS.Signals) => void): void {
    if (this.#signal) listener(this.#signal);
    else this.#listeners.push(listener);
  }

  /** Removes the handlers; the default behaviour of the signals returns. */
  dispose(): void {
    for (const signal of INTERRUPT_SIGNALS) process.removeListener(signal, this.#handler);
    this.#listeners.length = 0;
  }
}

/** The shell's exit status for a process ended by `signal`: 128 + its number (130 for SIGINT). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}
