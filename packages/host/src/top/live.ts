import { emitKeypressEvents } from 'node:readline';
import { writeSync } from 'node:fs';
import { fitRows, renderTop } from './render.js';
import { ENTER_SCREEN, frame, LEAVE_SCREEN } from './screen.js';
import type { TopReader } from './snapshot.js';
import { SORT_KEYS_PRESSED, type TopSortKey } from './sort.js';
import { screenWidth, topWidth } from './width.js';
import { terminalRows } from '../output/terminal-width.js';

/** How often the live view reads the files and redraws, ms (`systemd-cgtop` and `htop` default to 1 s). */
export const REFRESH_MS = 1000;

/** Options of {@link runLiveTop}. */
export interface LiveTopOptions {
  readonly reader: TopReader;
  readonly sort: TopSortKey;
  /** Ended calls shown per session. */
  readonly lastCalls: number;
  /** Where keys come from (a terminal: raw mode while the view runs). Default `process.stdin`. */
  readonly input?: NodeJS.ReadStream;
  /** The terminal drawn on. Default `process.stdout`. */
  readonly output?: NodeJS.WriteStream;
}

/** Key name of a pressed key, as `readline`'s keypress events give it. */
interface Key {
  readonly name?: string;
  readonly ctrl?: boolean;
}

/**
 * Runs the live view until `q` or Ctrl-C (or SIGINT, SIGTERM, SIGHUP), redrawing every
 * {@link REFRESH_MS} and when the terminal is resized; a sort key (`c`, `m`, `t`, `d`, `p` in either
 * case, `SORT_LETTERS`) re-sorts at once. Draws on the alternate screen with the cursor hidden and
 * the keyboard in raw mode (`node:readline` keypress events), and puts all three back however it
 * ends (an exception too). Resolves with the exit code: 0, or 128 + the signal's number when a
 * signal other than SIGINT ended it.
 */
export function runLiveTop(options: LiveTopOptions): Promise<number> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  let sort = options.sort;
  let timer: NodeJS.Timeout | undefined;
  let restored = false;
  const raw = input.isTTY === true && typeof input.setRawMode === 'function';

  /** Undoes raw mode and the alternate screen; safe to call more than once (also from 'exit'). */
  const restore = (): void => {
    if (restored) return;
    restored = true;
    if (timer) clearInterval(timer);
    if (raw) {
      try {
        input.setRawMode(false);
      } catch {
        // The terminal is gone (SIGHUP).
      }
    }
    try {
      // Synchronous: this also runs on process 'exit', where a stream write would be lost.
      writeSync((output as NodeJS.WriteStream & { fd: number }).fd, LEAVE_SCREEN);
    } catch {
      // The terminal is gone.
    }
  };

  return new Promise<number>((resolve, reject) => {
    const draw = (): void => {
      try {
        const width = topWidth(output.columns);
        // A terminal reporting 0 rows (`stty rows 0`) counts as unknown: LINES, else 24.
        const rows = terminalRows(output.rows);
        const lines = renderTop(options.reader.snapshot(sort), { width, lastCalls: options.lastCalls, live: true });
        // Laid out to at least TOP_MIN_WIDTH, but cut to the terminal: a narrower one would wrap them.
        output.write(frame(fitRows(lines, rows, Math.min(width, screenWidth(output.columns))), rows));
      } catch (error) {
        finish();
        reject(error);
      }
    };
    const onKey = (text: string | undefined, key: Key | undefined): void => {
      if ((key?.ctrl && key.name === 'c') || text === 'q' || text === 'Q') return finish(0);
      const next = text === undefined ? undefined : SORT_KEYS_PRESSED[text];
      if (next) {
        sort = next;
        draw();
      } else if (text === ' ') draw();
    };
    const signals: Array<[NodeJS.Signals, number]> = [
      ['SIGINT', 0],
      ['SIGTERM', 128 + 15],
      ['SIGHUP', 128 + 1],
    ];
    const handlers = signals.map(([signal, code]) => [signal, () => finish(code)] as const);
    const onExit = (): void => restore();
    function finish(code?: number): void {
      restore();
      input.off('keypress', onKey);
      output.off('resize', draw);
      for (const [signal, handler] of handlers) process.off(signal, handler);
      process.off('exit', onExit);
      if (raw) input.pause();
      if (code !== undefined) resolve(code);
    }

    process.on('exit', onExit);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    if (raw) {
      emitKeypressEvents(input);
      input.setRawMode(true);
      input.on('keypress', onKey);
      input.resume();
    }
    output.write(ENTER_SCREEN);
    output.on('resize', draw);
    draw();
    timer = setInterval(draw, REFRESH_MS);
  });
}
