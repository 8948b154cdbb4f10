import { call, marker, samples } from '../reduce/helpers.js';

/** Epoch ms of the synthetic batch's first sample. */
export const T = 1_800_000_000_000;
/** Session B starts an hour later. */
export const T2 = T + 3_600_000;

/**
 * Writes the synthetic batch into `dataDir` through the hook's and the sampler's own writers.
 * Every figure of it is derived by hand in analyze.test.ts.
 *
 * Session `syn-a` (claude-code): 41 samples, one every 250 ms from T to T+10 s; memory 200 MiB
 * except 800 at samples 6–8 (t = 1.5–2.0 s) and 250 at samples 26–30 (t = 6.5–7.5 s); CPU 50 %
 * at samples 4–12 (the pytest window), else 10 %. session_start at T−1 s, session_end at T+11 s.
 * Calls: Bash `pytest -q` 1.0–3.0 s; Read 3.6–3.7 s (no sample inside); Bash `npm test` three
 * times, 4.0–4.5, 5.0–5.5, 6.0–6.5 s; Bash `git status` 8.0–8.25 s.
 *
 * Session `syn-b` (codex): 21 samples every 250 ms from T2 to T2+5 s, memory 150, CPU 0; one
 * Bash `ls -la` 1.0–2.0 s.
 */
export function writeSyntheticBatch(dataDir: string): void {
  marker(dataDir, 'syn-a', 'session_start', T - 1000);
  call(dataDir, 'syn-a', 'a1', T + 1000, T + 3000, { command: 'pytest -q' });
  call(dataDir, 'syn-a', 'a2', T + 3600, T + 3700, { tool_name: 'Read', tool: 'read', command: '/repo/setup.py' });
  call(dataDir, 'syn-a', 'a3', T + 4000, T + 4500, { command: 'npm test' });
  call(dataDir, 'syn-a', 'a4', T + 5000, T + 5500, { command: 'npm test' });
  call(dataDir, 'syn-a', 'a5', T + 6000, T + 6500, { command: 'npm test' });
  call(dataDir, 'syn-a', 'a6', T + 8000, T + 8250, { command: 'git status' });
  marker(dataDir, 'syn-a', 'session_end', T + 11000);
  samples(
    dataDir,
    'syn-a',
    Array.from({ length: 41 }, (_, i) => ({ t: T + 250 * i, mb: i >= 6 && i <= 8 ? 800 : i >= 26 && i <= 30 ? 250 : 200, cpu: i >= 4 && i <= 12 ? 50 : 10 })),
  );
  call(dataDir, 'syn-b', 'b1', T2 + 1000, T2 + 2000, { command: 'ls -la', agent: 'codex' });
  samples(dataDir, 'syn-b', Array.from({ length: 21 }, (_, i) => ({ t: T2 + 250 * i, mb: 150, cpu: 0 })));
}
