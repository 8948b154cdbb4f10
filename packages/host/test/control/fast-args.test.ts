import { describe, expect, it } from 'vitest';
import { parseFastControlRunArgs } from '../../src/control/fast.js';

// Which `cordon control run …` forms bin/run.cjs sends past oclif; everything else oclif parses
// (and refuses with its own messages).

describe('fast route of control run', () => {
  it('takes --hint, --json and --verbose before -- and a command', () => {
    expect(parseFastControlRunArgs(['--', 'npm', 'test'])).toEqual({ json: false, verbose: false, argv: ['npm', 'test'] });
    expect(parseFastControlRunArgs(['--hint', 'memory:low', '--json', '--verbose', '--', 'sh', '-c', 'x --json'])).toEqual({ hint: 'memory:low', json: true, verbose: true, argv: ['sh', '-c', 'x --json'] });
    expect(parseFastControlRunArgs(['--hint=mem:high,cpu:low', '--', '--', 'x'])).toEqual({ hint: 'mem:high,cpu:low', json: false, verbose: false, argv: ['--', 'x'] });
  });

  it('leaves help, bad hints, repeated or unknown flags and a missing or empty command to oclif', () => {
    for (const args of [['--help'], ['npm', 'test'], ['--'], ['--hint', 'memory:huge', '--', 'x'], ['--hint=', '--', 'x'], ['--json', '--json', '--', 'x'], ['--bogus', '--', 'x'], ['--hint'], ['--', ''], ['--json', '--', '', 'x']]) {
      expect(parseFastControlRunArgs(args), args.join(' ')).toBeUndefined();
    }
  });
});

describe('fast route bundle', () => {
  it('does not load oclif (the point of the route)', async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const bundle = readFileSync(join(import.meta.dirname, '../../dist/control/fast.cjs'), 'utf8');
    expect(bundle).not.toMatch(/require\(["']@oclif\//);
    expect(bundle).toContain('parseFastControlRunArgs');
  });
});
