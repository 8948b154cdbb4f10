import { mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotChanges, snapshotTree, withoutLiveSessions } from './global-setup.js';
import { tempDirForTest } from './temp.js';

// The run's guard of the user's own cordon directories (global-setup.ts), on real directories.

describe('the guard of the user directories', () => {
  it("passes over a live session's own files, and still reports a new session, a new file elsewhere and a changed log", () => {
    const data = join(tempDirForTest('cordon-guard-'), 'cordon');
    const live = join(data, 'runs', 'live-session');
    mkdirSync(live, { recursive: true });
    writeFileSync(join(live, 'samples.jsonl'), 'a\n');
    mkdirSync(join(data, 'logs'));
    writeFileSync(join(data, 'logs', 'cordon.log'), 'x\n');
    const before = snapshotTree(data);
    // The user's agent goes on: its sampler appends, its session gets a new file.
    appendFileSync(join(live, 'samples.jsonl'), 'b\n');
    writeFileSync(join(live, 'markers.jsonl'), 'm\n');
    // A test that escaped its sandbox: a session of its own, and a log line.
    mkdirSync(join(data, 'runs', 'escaped'));
    writeFileSync(join(data, 'runs', 'escaped', 'samples.jsonl'), 's\n');
    appendFileSync(join(data, 'logs', 'cordon.log'), 'y\n');
    const changes = snapshotChanges(before, snapshotTree(data));
    expect(changes).toEqual(expect.arrayContaining([`changed ${join(live, 'samples.jsonl')}`, `created ${join(live, 'markers.jsonl')}`]));
    expect(withoutLiveSessions(changes, before).sort()).toEqual(
      [`changed ${join(data, 'logs', 'cordon.log')}`, `changed ${join(data, 'runs')}`, `created ${join(data, 'runs', 'escaped')}`, `created ${join(data, 'runs', 'escaped', 'samples.jsonl')}`].sort(),
    );
  });
});
