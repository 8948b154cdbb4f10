import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverRepo } from '../../src/envelope/git/repo.js';
import { currentReadAhead, readEnvelopeAhead } from '../../src/envelope/state/read-ahead.js';
import { loadEnvelope, saveState } from '../../src/envelope/state/store.js';
import { armWith, checkIn, repo } from './support.js';

// `check` reads the envelope while git locates the repository, before the lock: the read is kept
// only while every file it came from is as it was (src/envelope/state/read-ahead.ts).
describe('the envelope read ahead of the lock', () => {
  it('is kept while nothing changed, and dropped once cordon wrote the state, the directory gained a file or info/exclude was edited', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    const loc = await discoverRepo(dir);
    const fresh = () => readEnvelopeAhead(loc)!;
    expect(currentReadAhead(fresh(), loc)).toEqual(loadEnvelope(loc));

    let ahead = fresh();
    saveState(loc.root, { ...ahead.envelope.state, last_error: 'written by another cordon' });
    expect(currentReadAhead(ahead, loc)).toBeUndefined();

    ahead = fresh();
    writeFileSync(join(loc.root, '.cordon', 'stray'), 'x');
    expect(currentReadAhead(ahead, loc)).toBeUndefined();
    rmSync(join(loc.root, '.cordon', 'stray'));

    // An edit in place (same inode) that changes the size; the check then reads again and refuses.
    ahead = fresh();
    appendFileSync(loc.excludeFile, 'extra-rule\n');
    expect(currentReadAhead(ahead, loc)).toBeUndefined();
    await expect(checkIn(dir)).rejects.toThrow(/changed after cordon was armed/);
  });

  it('is dropped for another location and absent when the guessed envelope cannot be read', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    const loc = await discoverRepo(dir);
    const ahead = readEnvelopeAhead(loc)!;
    expect(currentReadAhead(ahead, { ...loc, gitDir: `${loc.gitDir}-other` })).toBeUndefined();
    expect(currentReadAhead(ahead, { ...loc, excludeFile: `${loc.excludeFile}-other` })).toBeUndefined();
    expect(readEnvelopeAhead({ ...loc, root: join(loc.root, 'src') })).toBeUndefined();
    writeFileSync(join(loc.root, '.cordon', 'config.json'), '{');
    expect(readEnvelopeAhead(loc)).toBeUndefined();
    // The check itself still refuses the damaged envelope, naming it.
    await expect(checkIn(dir)).rejects.toThrow(/config\.json/);
  });
});
