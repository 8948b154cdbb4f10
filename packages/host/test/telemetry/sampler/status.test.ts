import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { samplerFindings } from '../../../src/doctor/activity.js';
import { readSamplerView } from '../../../src/top/sampler-state.js';
import { SAMPLER_FILES } from '../../../src/telemetry/sampler/files.js';
import { identify } from '../../../src/telemetry/sampler/identity.js';
import { lockPath, readLockOwner } from '../../../src/telemetry/sampler/lock.js';
import { liveSampler, readSamplerEvents, readSamplerStatus, SAMPLER_EVENTS_TAIL_BYTES } from '../../../src/telemetry/sampler/state.js';

// One reader of a session's sampler state (telemetry/sampler/state.ts readSamplerStatus) behind
// wrap/reduce (liveSampler), cordon top (readSamplerView) and cordon doctor (samplerFindings), on
// real lock files and a real live process standing in for the sampler.

const linux = process.platform === 'linux';
let root: string;
let dir: string;
let owner: ChildProcess;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cordon-status-'));
  dir = join(root, 'runs', 'session-1');
  execFileSync('mkdir', ['-p', dir]);
  owner = spawn('sleep', ['30'], { stdio: 'ignore' });
});
afterEach(() => {
  owner.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** Generation 1's lock held by the stand-in process in `role`. */
function lock(role: 'hook' | 'sampler' = 'sampler', pid = owner.pid!): void {
  writeFileSync(lockPath(dir, 1), JSON.stringify({ ...identify(pid)!, role, generation: 1, at: Date.now() }));
}

const event = (fields: Record<string, unknown>) => `${JSON.stringify({ t: Date.now(), ...fields })}\n`;

describe.runIf(linux)('sampler status', () => {
  it('a live sampler that has written its stop is stopped for every reader, while its process still exits', () => {
    lock();
    // doctor lists sessions that have markers or samples.
    writeFileSync(join(dir, SAMPLER_FILES.markers), '');
    appendFileSync(join(dir, SAMPLER_FILES.events), event({ event: 'start', pid: owner.pid, generation: 1, root_pid: 4242 }));
    expect(liveSampler(dir)).toMatchObject({ pid: owner.pid, role: 'sampler' });
    expect(readSamplerView(dir)).toMatchObject({ state: 'running', pid: owner.pid, root: { pid: 4242 } });
    expect(samplerFindings(root)[0]!.message).toContain(`pid ${owner.pid}`);

    appendFileSync(join(dir, SAMPLER_FILES.events), event({ event: 'stop', pid: owner.pid, generation: 1, reason: 'idle' }));
    expect(readSamplerStatus(dir)).toMatchObject({ generation: 1, alive: true, stopped: true });
    expect(liveSampler(dir)).toBeUndefined();
    expect(readSamplerView(dir)).toMatchObject({ state: 'stopped', pid: owner.pid, reason: 'idle' });
    expect(samplerFindings(root)[0]!.message).toBe('none running');
  });

  it('finds the stop at the end of a long events file, and only the owner generation’s stop counts', () => {
    lock();
    const events = join(dir, SAMPLER_FILES.events);
    for (let i = 0; i < 200; i++) appendFileSync(events, event({ event: 'note', pid: owner.pid, note: 'x'.repeat(100) }));
    // Another process's stop, and the owner's stop of an older generation, are not this sampler's.
    appendFileSync(events, event({ event: 'stop', pid: owner.pid! + 1, generation: 1 }));
    appendFileSync(events, event({ event: 'stop', pid: owner.pid, generation: 0 }));
    expect(liveSampler(dir)).toMatchObject({ pid: owner.pid });
    appendFileSync(events, event({ event: 'stop', pid: owner.pid, generation: 1 }));
    expect(liveSampler(dir)).toBeUndefined();
  });

  it('reads no events through a link or from a FIFO, and returns at once instead of blocking', () => {
    lock();
    const elsewhere = join(root, 'elsewhere.jsonl');
    writeFileSync(elsewhere, event({ event: 'stop', pid: owner.pid, generation: 1 }));
    symlinkSync(elsewhere, join(dir, SAMPLER_FILES.events));
    expect(readSamplerEvents(dir)).toEqual([]);
    expect(liveSampler(dir)).toMatchObject({ pid: owner.pid });
    rmSync(join(dir, SAMPLER_FILES.events));
    execFileSync('mkfifo', [join(dir, SAMPLER_FILES.events)]);
    const began = Date.now();
    expect(readSamplerEvents(dir)).toEqual([]);
    expect(liveSampler(dir)).toMatchObject({ pid: owner.pid });
    expect(readSamplerView(dir).state).toBe('running');
    expect(Date.now() - began).toBeLessThan(5_000);
  });

  it('takes whole lines of the tail only: a line cut by the window is dropped, a torn last line skipped', () => {
    const events = join(dir, SAMPLER_FILES.events);
    writeFileSync(events, `${'{"event":"note","pad":"'}${'y'.repeat(SAMPLER_EVENTS_TAIL_BYTES)}"}\n`);
    appendFileSync(events, event({ event: 'start', pid: 7, root_pid: 8 }));
    appendFileSync(events, '{"event":"stop","pid":7');
    expect(readSamplerEvents(dir, SAMPLER_EVENTS_TAIL_BYTES).map((e) => e.event)).toEqual(['start']);
    expect(readSamplerEvents(dir).map((e) => e.event)).toEqual(['note', 'start']);
    expect(readSamplerView(dir)).toMatchObject({ state: 'died', pid: 7, root: { pid: 8 } });
  });

  it.each([
    ['no pid', { role: 'sampler' }],
    ['pid 0', { pid: 0, role: 'sampler' }],
    ['a negative pid', { pid: -1, role: 'sampler' }],
    ['a pid as text', { pid: '12', role: 'sampler' }],
    ['no role', { pid: 12 }],
    ['an unknown role', { pid: 12, role: 'agent' }],
    ['a start that is not a number', { pid: 12, role: 'sampler', start: 'x' }],
    ['an array', [12]],
    ['null', null],
  ])('a lock with %s is no owner', (_label, record) => {
    writeFileSync(lockPath(dir, 1), JSON.stringify(record));
    expect(readLockOwner(dir, 1)).toBeUndefined();
    expect(readSamplerStatus(dir)).toMatchObject({ generation: 1, owner: undefined, alive: false });
    expect(readSamplerView(dir).state).toBe('died');
  });

  it('a hook still starting the sampler is starting to top and live to wrap, and the caller itself never counts', () => {
    lock('hook');
    expect(readSamplerView(dir).state).toBe('starting');
    expect(liveSampler(dir)).toMatchObject({ role: 'hook' });
    lock('sampler', process.pid);
    expect(liveSampler(dir)).toBeUndefined();
  });
});
