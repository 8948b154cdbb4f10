import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, globCoversDirectory, globProblem, matchGlob } from '../../src/envelope/glob.js';
import { compilePathRules } from '../../src/envelope/policy/policy.js';

/**
 * An independent matcher for the documented semantics (glob.ts): segments split on `/`; a `**`
 * segment matches zero or more segments, but one or more as the last segment of a multi-segment
 * glob; within a segment `*` is any run, `?` one character, everything else literal.
 */
function segmentMatches(pattern: string, text: string): boolean {
  const p = [...pattern];
  const t = [...text];
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = i * (t.length + 1) + j;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let r: boolean;
    if (i === p.length) r = j === t.length;
    else if (p[i] === '*') r = go(i + 1, j) || (j < t.length && go(i, j + 1));
    else if (p[i] === '?') r = j < t.length && go(i + 1, j + 1);
    else r = j < t.length && p[i] === t[j] && go(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

function reference(glob: string, path: string): boolean {
  const g = glob.split('/');
  const s = path.split('/');
  const go = (i: number, j: number): boolean => {
    if (i === g.length) return j === s.length;
    if (g[i] === '**') {
      const least = i === g.length - 1 && i > 0 ? 1 : 0;
      for (let k = j + least; k <= s.length; k++) if (go(i + 1, k)) return true;
      return false;
    }
    return j < s.length && segmentMatches(g[i]!, s[j]!) && go(i + 1, j + 1);
  };
  return go(0, 0);
}

const globChars = ['a', 'b', '.', '*', '?', '[', ']', '{', '}', '(', ')', '!', '+', '@', ',', '$', '^', '|', ' ', 'é', '\n', '\t', '#', '-', '~'];
const pathChars = [...globChars.filter((c) => c !== '*' && c !== '?'), '*', '?', '\\', '\udcff'];
const segment = (chars: string[]) => fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: 4 }).map((a) => a.join(''));
const globArb = fc
  .array(fc.oneof({ weight: 1, arbitrary: fc.constant('**') }, { weight: 4, arbitrary: segment(globChars) }), { minLength: 1, maxLength: 4 })
  .map((segs) => segs.join('/'))
  .filter((g) => globProblem(g) === undefined);
const pathArb = fc
  .array(segment(pathChars).filter((s) => s !== '.' && s !== '..'), { minLength: 1, maxLength: 5 })
  .map((segs) => segs.join('/'));
/** Git never records a path with an empty, `.` or `..` segment (verify_path), so none is generated. */
const gitPath = (path: string) => path.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
/** A path built from the glob itself, so that matches are frequent. */
const nearPath = (glob: string) =>
  fc.tuple(segment(['a', '.', 'é', '\n']), segment(['x', '/', 'y'])).map(([fill, deep]) =>
    glob
      .split('/')
      .map((s) => (s === '**' ? deep.split('/').filter(Boolean).join('/') || 'z' : s.replace(/[*?]/g, () => fill[0]!)))
      .join('/'),
  ).filter(gitPath);

describe('envelope globs', () => {
  it('match the independent matcher on random globs and paths (fast-check)', () => {
    fc.assert(
      fc.property(globArb.chain((g) => fc.tuple(fc.constant(g), fc.oneof(pathArb, nearPath(g)))), ([glob, path]) => {
        expect(matchGlob(glob, path)).toBe(reference(glob, path));
      }),
      { numRuns: 20_000 },
    );
  });

  it('follow the documented table (the BEKO2210/SkillQuarry cordon, decided semantics)', () => {
    const table: Array<[string, string, boolean]> = [
      ['src/**', 'src/a/b', true],
      ['src/**', 'src', false],
      ['*.py', 'src/a.py', false],
      ['*.py', 'a.py', true],
      ['**/x', 'x', true],
      ['**/x', 'a/b/x', true],
      ['a/**/b', 'a/b', true],
      ['a/**/b', 'a/x/y/b', true],
      ['src/*', 'src/.hidden', true],
      ['src/*', 'src/a/b', false],
      ['a**b', 'a/c/b', false],
      ['a**b', 'axxb', true],
      ['?', '/', false],
      ['SRC/**', 'src/a', false],
      ['[ab]', 'a', false],
      ['[ab]', '[ab]', true],
      ['{a,b}', 'a', false],
      ['{a,b}', '{a,b}', true],
      ['!a', '!a', true],
      ['a+(b)', 'a+(b)', true],
      ['a+(b)', 'ab', false],
      ['**', 'line\nbreak/x', true],
      ['src/*', 'src/line\nbreak\tname.py', true],
      ['src/*', 'src/invalid-\udcff.py', true],
    ];
    for (const [glob, path, want] of table) expect({ glob, path, match: matchGlob(glob, path) }).toEqual({ glob, path, match: want });
  });

  it('V1: allow **/test?.py and src/*, deny src/private*', () => {
    const rules = compilePathRules({ allow: ['**/test?.py', 'src/*'], deny: ['src/private*'], allow_ignored: [] });
    expect(rules.decide('pkg/test1.py').allowed).toBe(true);
    expect(rules.decide('test2.py').allowed).toBe(true);
    expect(rules.decide('src/a').allowed).toBe(true);
    expect(rules.decide('src/deep/a').allowed).toBe(false);
    expect(rules.decide('src/private1')).toEqual({ allowed: false, deniedBy: 'src/private*' });
  });

  it('V3: refuse empty, NUL, over-long, absolute-ish, dot-segment, empty-segment and backslash globs', () => {
    for (const bad of ['', 'a\0b', 'x'.repeat(513), '/src/**', './src/**', 'src/../x', 'src/./x', '..', 'src//a', 'src/', 'a\\*']) {
      expect(globProblem(bad), JSON.stringify(bad)).toBeTypeOf('string');
      expect(() => compileGlob(bad)).toThrow(/invalid glob/);
    }
    for (const ok of ['...', '~/x', '..x', 'x'.repeat(512), '**', 'a/**/b']) expect(globProblem(ok), ok).toBeUndefined();
  });

  it('say a directory is covered only when every path below it matches', () => {
    expect(globCoversDirectory('node_modules/**', 'node_modules')).toBe(true);
    expect(globCoversDirectory('**/node_modules/**', 'web/node_modules')).toBe(true);
    expect(globCoversDirectory('build/**', 'build/sub')).toBe(true);
    expect(globCoversDirectory('**', 'any/dir')).toBe(true);
    expect(globCoversDirectory('build/*.log', 'build')).toBe(false);
    expect(globCoversDirectory('build/**', 'buildx')).toBe(false);
    fc.assert(
      fc.property(globArb, pathArb, pathArb, (glob, dir, below) => {
        if (globCoversDirectory(glob, dir)) expect(matchGlob(glob, `${dir}/${below}`)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});
