import { spawnSync } from 'node:child_process';
import { constants, totalmem } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signalNumber, totalMemoryBytes } from '../../src/util/legacy-binding.js';

// The fast routes ask Node's bindings for what node:os would say, without loading node:os: the
// answers must be the same.
describe('what node:os says, from the bindings', () => {
  it('signalNumber gives os.constants.signals for every signal, and undefined for a name that is none', () => {
    for (const [name, number] of Object.entries(constants.signals)) expect(signalNumber(name), name).toBe(number);
    expect(signalNumber('SIGNOTONE')).toBeUndefined();
    expect(signalNumber('toString')).toBeUndefined();
    expect(signalNumber('__proto__')).toBeUndefined();
  });

  it('totalMemoryBytes gives os.totalmem()', () => {
    expect(totalMemoryBytes()).toBe(totalmem());
  });

  it('neither loads node:os, and neither prints a deprecation warning, even under --pending-deprecation', () => {
    const module = join(import.meta.dirname, '../../dist/util/legacy-binding.js');
    const script = `const m = await import(${JSON.stringify(module)}); const n = m.signalNumber('SIGTERM'); const t = m.totalMemoryBytes(); console.log(JSON.stringify({ n, t: t > 0, os: process.moduleLoadList.includes('NativeModule os') }));`;
    const run = spawnSync(process.execPath, ['--pending-deprecation', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ n: constants.signals.SIGTERM, t: true, os: false });
  });
});
