import { describe, expect, it } from 'vitest';
import { patchHeaders, patchTargets } from '../src/dialect/patch.js';
import { canonicalTool } from '../src/dialect/tools.js';
import { patchWriteTargets, shellPatchTargets, writeTargets } from '../src/dialect/writes.js';

/** The paths of `writeTargets`' answer (undefined stays undefined). */
const paths = (targets: ReadonlyArray<{ readonly path: string }> | undefined) => targets?.map((t) => t.path);

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

  it("reads headers as Codex's parser does: a trimmed hunk start is a header, a chunk line is not, CRLF reads alike", () => {
    // After an added file's `+` lines the next line starts a hunk and is trimmed: Codex applies
    // ` *** Update File: …` there (seen with Codex 0.171 for an indented `*** Add File:`).
    const patch = ['*** Begin Patch', '*** Add File: a.txt  ', '+*** Delete File: not-a-target', ' *** Update File: b.txt', '-*** Move to: removed-line', '*** End Patch', ''].join('\r\n');
    expect(patchTargets(patch)).toEqual(['a.txt', 'b.txt']);
    // Inside an update's chunk, a line starting with a space is context, however it reads.
    const context = ['*** Begin Patch', '*** Update File: src/doc.md', '@@', ' *** Add File: ../../etc/passwd', '-old', '+new', '*** End Patch'].join('\n');
    expect(patchTargets(context)).toEqual(['src/doc.md']);
  });

  it('does not let leading white space hide a header, in any of the forms Rust trims (tab, U+0085, U+3000)', () => {
    for (const pad of ['  ', '\t', '\u0085', '\u3000', '\u00a0']) {
      expect(patchTargets(`*** Begin Patch\n${pad}*** Add File: docs/x.md\n+x\n${pad}*** Delete File: README.md\n*** End Patch\n`)).toEqual(['docs/x.md', 'README.md']);
    }
  });

  it('keeps a path as Codex takes it: blanks after the marker stay, trailing ones go; a move line is taken untrimmed', () => {
    const patch = ['*** Begin Patch', '*** Add File:  spaced.txt \t', '+x', '*** Update File: a.py', '*** Move to: b.py  ', '@@', '-1', '+2', '*** End Patch'].join('\n');
    expect(patchHeaders(patch)).toEqual([
      { op: 'add', path: ' spaced.txt' },
      { op: 'update', path: 'a.py' },
      { op: 'move', path: 'b.py  ' },
    ]);
  });

  it("reads a heredoc-wrapped patch (Codex's lenient mode), and any header of a patch Codex would refuse", () => {
    expect(patchTargets("<<'EOF'\n*** Begin Patch\n*** Add File: h.txt\n+x\n*** End Patch\nEOF\n")).toEqual(['h.txt']);
    // No envelope, a hunk without its `@@`, a `*** Move to:` without its update: every header line counts.
    expect(patchTargets('*** Add File: a\n+x\n  *** Move to: ../out\n')).toEqual(['a', '../out']);
    expect(patchTargets('*** Begin Patch\n*** Update File: u\n*** End Patch')).toEqual(['u']);
  });

  it('reads a patch of 10,000 files in one pass', () => {
    const files = Array.from({ length: 10_000 }, (_, i) => `*** Add File: src/f${i}.txt\n+${i}`);
    const targets = patchTargets(['*** Begin Patch', ...files, '*** End Patch'].join('\n'));
    expect(targets).toHaveLength(10_000);
    expect(targets[9_999]).toBe('src/f9999.txt');
  });

  it('yields nothing for text that is no patch', () => {
    expect(patchTargets('')).toEqual([]);
    expect(patchTargets('echo hello')).toEqual([]);
    expect(patchTargets('*** Add File: ')).toEqual([]);
  });

  it('writeTargets reads apply_patch only, from command or input', () => {
    expect(paths(writeTargets('apply_patch', { command: '*** Begin Patch\n*** Add File: x\n+1\n*** End Patch' }))).toEqual(['x']);
    expect(paths(writeTargets('apply_patch', { input: '*** Begin Patch\n*** Delete File: y\n*** End Patch' }))).toEqual(['y']);
    expect(paths(writeTargets('Bash', { command: '*** Add File: x' }))).toBeUndefined();
    expect(paths(writeTargets('Bash', { command: 'ls -la' }))).toBeUndefined();
  });
});

describe('a shell call that runs apply_patch writes its patch files (Codex intercepts it, its hook says Bash)', () => {
  const patch = (path: string) => `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch\n`;
  it('reads both forms Codex takes from its shell tools, joining the cd directory as Codex does', () => {
    expect(paths(writeTargets('Bash', { command: `apply_patch <<'EOF'\n${patch('docs/a.md')}EOF\n` }))).toEqual(['docs/a.md']);
    expect(paths(writeTargets('Bash', { command: `applypatch <<EOF\n${patch('a.md')}EOF` }))).toEqual(['a.md']);
    expect(paths(writeTargets('Bash', { command: `cd docs && apply_patch <<'EOF'\n${patch('b.md')}EOF\n` }))).toEqual(['docs/b.md']);
    expect(paths(writeTargets('Bash', { command: `cd "my dir" && apply_patch <<"PATCH"\n${patch('c.md')}PATCH\n` }))).toEqual(['my dir/c.md']);
    expect(paths(writeTargets('Bash', { command: `cd /abs && apply_patch <<'EOF'\n${patch('/else/d.md')}EOF\n` }))).toEqual(['/else/d.md']);
    expect(paths(writeTargets('Bash', { command: `cd .. && apply_patch <<'EOF'\n${patch('e.md')}EOF\n` }))).toEqual(['../e.md']);
  });

  it('reads the argument-list forms and any other script that runs apply_patch on a patch', () => {
    expect(paths(shellPatchTargets(['apply_patch', patch('x.md')]))).toEqual(['x.md']);
    expect(paths(shellPatchTargets(['bash', '-lc', `cd src && apply_patch <<'EOF'\n${patch('y.md')}EOF`]))).toEqual(['src/y.md']);
    expect(paths(shellPatchTargets(`echo go; apply_patch "${patch('z.md')}"`))).toEqual(['z.md']);
    expect(paths(shellPatchTargets('echo apply_patch is a tool'))).toBeUndefined();
    expect(paths(shellPatchTargets(`cat <<'EOF'\n${patch('w.md')}EOF`))).toBeUndefined();
  });

  it('counts the patches of whatever follows the heredoc: that script is not a form Codex intercepts, the shell runs all of it', () => {
    // Codex takes only a script that is the one heredoc command; here the shell runs both through the apply_patch program.
    expect(paths(shellPatchTargets(`apply_patch <<'EOF'\n${patch('ok.md')}EOF\napply_patch <<'X'\n${patch('/etc/evil')}X\n`))).toEqual(['ok.md', '/etc/evil']);
    expect(paths(shellPatchTargets(`cd docs && apply_patch <<'EOF'\n${patch('a.md')}EOF\necho done; apply_patch "${patch('b.md')}"`))).toEqual(['docs/a.md', 'b.md']);
    // Only blank lines after it: still the one form.
    expect(paths(shellPatchTargets(`cd docs && apply_patch <<'EOF'\n${patch('a.md')}EOF\n\n  \n`))).toEqual(['docs/a.md']);
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

describe('how Codex changes each file of a patch (a symbolic link there is followed or not)', () => {
  it('writes added and updated files and a move destination in place, removes deleted files and a move source', () => {
    const body = ['*** Begin Patch', '*** Add File: a', '+1', '*** Delete File: b', '*** Update File: c', '@@', '-x', '+y', '*** Update File: d', '*** Move to: e', '@@', '-x', '+y', '*** End Patch'].join('\n');
    expect(patchWriteTargets(body)).toEqual([
      { path: 'a', kind: 'write' },
      { path: 'b', kind: 'remove' },
      { path: 'c', kind: 'write' },
      { path: 'd', kind: 'remove' },
      { path: 'e', kind: 'write' },
    ]);
    expect(writeTargets('Bash', { command: `cd src && apply_patch <<'EOF'\n${body}\nEOF\n` })?.filter((t) => t.kind === 'remove')).toEqual([
      { path: 'src/b', kind: 'remove' },
      { path: 'src/d', kind: 'remove' },
    ]);
  });
});
