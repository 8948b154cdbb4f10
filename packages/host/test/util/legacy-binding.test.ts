import { spawnSync } from 'node:child_process';
import { constants, hostname, totalmem } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostName, signalNumber, systemTempDir, totalMemoryBytes } from '../../src/util/legacy-binding.js';

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

  it('hostName gives os.hostname()', () => {
    expect(hostName()).toBe(hostname());
  });

  it.each([
    ['TMPDIR with a trailing slash', { TMPDIR: '/var/tmp/x/' }],
    ['TMPDIR /', { TMPDIR: '/' }],
    ['TMP only', { TMP: '/srv/tmp' }],
    ['TEMP only, trailing slash', { TEMP: '/srv/temp/' }],
    ['TMPDIR empty, TMP set', { TMPDIR: '', TMP: '/srv/tmp2' }],
    ['none', {}],
  ])('systemTempDir gives what os.tmpdir() gives in a process with %s', (_name, vars: Record<string, string>) => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...vars };
    const child = spawnSync(process.execPath, ['-e', "process.stdout.write(require('node:os').tmpdir())"], { env, encoding: 'utf8' });
    expect(child.status).toBe(0);
    expect(systemTempDir(env)).toBe(child.stdout);
  });

  it('none of them loads node:os, and none prints a deprecation warning, even under --pending-deprecation', () => {
    const module = join(import.meta.dirname, '../../dist/util/legacy-binding.js');
    const script = `const m = await import(${JSON.stringify(module)}); const n = m.signalNumber('SIGTERM'); const t = m.totalMemoryBytes(); const h = m.hostName(); const d = m.systemTempDir(); console.log(JSON.stringify({ n, t: t > 0, h: h.length > 0, d: d.length > 0, os: process.moduleLoadList.includes('NativeModule os') }));`;
    const run = spawnSync(process.execPath, ['--pending-deprecation', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ n: constants.signals.SIGTERM, t: true, h: true, d: true, os: false });
  });
});
