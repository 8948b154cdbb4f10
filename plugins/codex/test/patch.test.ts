import { describe, expect, it } from 'vitest';
import { patchTargets } from '../src/dialect/patch.js';
import { canonicalTool } from '../src/dialect/tools.js';
import { writeTargets } from '../src/dialect/writes.js';

describe('patchTargets (the Codex apply_patch envelope)', () => {
  it('names every added, updated, deleted and moved file in patch order', () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: src/new.ts',
      '+export const a = 1;',
      '*** Update File: src/old.ts',
      '*** Move to: lib/old.ts',
      '@@ function f()',
      '-a',
      '+b',
      '*** Delete File: docs/gone.md',
      '*** Update File: /abs/path/x.py',
      '@@',
      ' context',
      '*** End of File',
      '*** End Patch',
    ].join('\n');
    expect(patchTargets(patch)).toEqual(['src/new.ts', 'src/old.ts', 'lib/old.ts', 'docs/gone.md', '/abs/path/x.py']);
  });

  it('never takes a hunk line for a header, and drops CRLF and trailing blanks', () => {
    const patch = ['*** Begin Patch', '*** Add File: a.txt  ', '+*** Delete File: not-a-target', ' *** Update File: context-line', '-*** Move to: removed-line', '*** End Patch', ''].join('\r\n');
    expect(patchTargets(patch)).toEqual(['a.txt']);
  });

  it('yields nothing for text that is no patch', () => {
    expect(patchTargets('')).toEqual([]);
    expect(patchTargets('echo hello')).toEqual([]);
    expect(patchTargets('*** Add File: ')).toEqual([]);
  });

  it('writeTargets reads apply_patch only, from command or input', () => {
    expect(writeTargets('apply_patch', { command: '*** Begin Patch\n*** Add File: x\n+1\n*** End Patch' })).toEqual(['x']);
    expect(writeTargets('apply_patch', { input: '*** Begin Patch\n*** Delete File: y\n*** End Patch' })).toEqual(['y']);
    expect(writeTargets('Bash', { command: '*** Add File: x' })).toBeUndefined();
  });
});

describe('canonicalTool of apply_patch reads the same headers', () => {
  it('is a write when the patch only adds files, an edit otherwise', () => {
    expect(canonicalTool('apply_patch', { command: '*** Begin Patch\n*** Add File: a\n+1\n*** Add File: b\n+2\n*** End Patch' })).toBe('write');
    expect(canonicalTool('apply_patch', { command: '*** Begin Patch\n*** Add File: a\n+1\n*** Delete File: b\n*** End Patch' })).toBe('edit');
    expect(canonicalTool('apply_patch', { input: '*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n*** End Patch' })).toBe('edit');
    expect(canonicalTool('apply_patch', { command: 'not a patch' })).toBe('edit');
  });
});
