import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PeakTracker } from '../../src/top/samples-tail.js';

// `cordon top` follows a call's peak by reading only what the sampler appended since its last
// look. However the appends fall between its looks (a line read half written, a writer killed
// mid-line whose tail the next append ends with a newline), it must end with the peak of every
// whole sample since the call started, as a reader of the whole file would.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-peak-follow-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A sample line as the sampler writes it, with a note of multi-byte text so a half write can split a character. */
const sampleLine = (t: number, mem: number): string => `{"t":${t},"mem_mb":${mem},"cpu_pct":1,"n_procs":1,"partial":false,"note":"é😀"}`;

type Step =
  | { readonly kind: 'line'; readonly t: number; readonly mem: number }
  | { readonly kind: 'half'; readonly t: number; readonly mem: number; readonly at: number }
  | { readonly kind: 'torn'; readonly t: number; readonly mem: number; readonly at: number }
  | { readonly kind: 'look' };

const sample = { t: fc.integer({ min: 0, max: 40 }), mem: fc.integer({ min: 0, max: 1000 }) };
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('line' as const), ...sample }),
  fc.record({ kind: fc.constant('half' as const), ...sample, at: fc.nat() }),
  fc.record({ kind: fc.constant('torn' as const), ...sample, at: fc.nat() }),
  fc.constant({ kind: 'look' as const }),
);

describe('PeakTracker', () => {
  it('ends with the peak of every whole sample since the call started, however appends and looks interleave', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 25 }), fc.integer({ min: 0, max: 40 }), fc.boolean(), (steps, since, lookFirst) => {
        const path = join(dir, 'samples.jsonl');
        writeFileSync(path, '');
        const tracker = new PeakTracker(path, since);
        if (lookFirst) tracker.update();
        // appendLine's repair: a file whose last byte is not a newline gets one before the next line.
        let torn = false;
        const append = (text: string): void => {
          appendFileSync(path, (torn ? '\n' : '') + text);
          torn = false;
        };
        let peak: number | null = null;
        const whole = (t: number, mem: number): void => {
          if (t >= since && (peak === null || mem > peak)) peak = mem;
        };
        for (const s of steps) {
          if (s.kind === 'look') {
            tracker.update();
            continue;
          }
          const bytes = Buffer.from(sampleLine(s.t, s.mem));
          if (s.kind === 'line') {
            append(`${sampleLine(s.t, s.mem)}\n`);
            whole(s.t, s.mem);
          } else {
            // Cut anywhere in the line's bytes, inside a character too.
            const cut = s.at % bytes.length;
            appendFileSync(path, Buffer.concat([torn ? Buffer.from('\n') : Buffer.alloc(0), bytes.subarray(0, cut)]));
            torn = cut > 0;
            if (s.kind === 'half') {
              tracker.update();
              appendFileSync(path, Buffer.concat([bytes.subarray(cut), Buffer.from('\n')]));
              torn = false;
              whole(s.t, s.mem);
            }
          }
        }
        expect(tracker.update()).toEqual({ mem_mb: peak, from: null });
      }),
      { numRuns: 150 },
    );
  });
});
