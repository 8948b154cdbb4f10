import { describe, expect, it } from 'vitest';
import { dialect } from '../src/dialect/index.js';
import { writeTargets } from '../src/dialect/writes.js';

// Hermes Agent's `patch` tool (PATCH_SCHEMA of tools/file_tools.py, NousResearch/hermes-agent):
// `mode: "replace"` (the default) edits `path`; `mode: "patch"` applies the V4A text in `patch`.

const V4A = [
  '*** Begin Patch',
  '*** Update File: src/app.py',
  '@@ def main @@',
  '-print("hello")',
  '+print("bye")',
  '*** Add File: src/util.py',
  '+def util(): pass',
  '*** Delete File: docs/old.md',
  '*** Move File: src/a.py -> /tmp/elsewhere/a.py',
  '*** End Patch',
].join('\n');

describe('Hermes writeTargets', () => {
  it('is the dialect\'s writeTargets', () => {
    expect(dialect.writeTargets).toBe(writeTargets);
  });

  it('names `path` of write_file and of patch in replace mode (given or by default)', () => {
    expect(writeTargets('write_file', { path: 'src/x.py', content: 'x' })).toEqual(['src/x.py']);
    expect(writeTargets('patch', { mode: 'replace', path: '/abs/y.py', old_string: 'a', new_string: 'b' })).toEqual(['/abs/y.py']);
    expect(writeTargets('patch', { path: '~/notes.md', old_string: 'a', new_string: 'b' })).toEqual(['~/notes.md']);
  });

  it('names every file of a multi-file patch: updated, added, deleted and both ends of a move', () => {
    expect(writeTargets('patch', { mode: 'patch', patch: V4A })).toEqual(['src/app.py', 'src/util.py', 'docs/old.md', 'src/a.py', '/tmp/elsewhere/a.py']);
  });

  it('adds `path` when a patch-mode call also names one (Hermes checks and locks it too)', () => {
    expect(writeTargets('patch', { mode: 'patch', path: 'README.md', patch: '*** Begin Patch\n*** Add File: src/n.py\n+x\n*** End Patch' })).toEqual(['README.md', 'src/n.py']);
  });

  it('reads the patch text whatever `mode` says (a text Hermes does not apply writes nothing)', () => {
    expect(writeTargets('patch', { patch: '*** Begin Patch\n*** Delete File: README.md\n*** End Patch' })).toEqual(['README.md']);
  });

  it("takes each header path as Hermes does (Python's strip), so a control blank cannot make /etc/… look relative", () => {
    const patch = '*** Begin Patch\n*** Add File: \x1f/etc/cron.d/job\n+x\n***Update File:\u0085/home/u/.bashrc\r\n*** Move File:\tsrc/a.py\x1c->\x1d~/a.py\n*** End Patch';
    expect(writeTargets('patch', { mode: 'patch', patch })).toEqual(['/etc/cron.d/job', '/home/u/.bashrc', 'src/a.py', '~/a.py']);
  });

  it('gives [] (judged: nothing to refuse) for a malformed or empty patch, and never throws', () => {
    for (const patch of ['', 'not a patch', '*** Begin Patch\n*** Update File:\n*** End Patch', '***\n@@\n-', '\u0000\ud800*** Add File:']) {
      expect(writeTargets('patch', { mode: 'patch', patch })).toEqual([]);
    }
    expect(writeTargets('patch', { mode: 'patch', patch: 42 })).toEqual([]);
    expect(writeTargets('patch', { mode: 'patch', patch: { lines: ['*** Add File: x'] } })).toEqual([]);
    expect(writeTargets('patch', {})).toEqual([]);
  });

  it('is undefined for every other tool, by name, whatever its input holds', () => {
    expect(writeTargets('terminal', { command: 'echo x > README.md', patch: V4A })).toBeUndefined();
    expect(writeTargets('read_file', { path: 'README.md' })).toBeUndefined();
  });
});
