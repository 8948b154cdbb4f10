import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/index.js';
import { arm, DEFAULT_LIMITS, parsePolicyFile, resolveSettings } from '../../src/envelope/index.js';
import { repo } from './support.js';

const bad = (fn: () => unknown, message: RegExp) => expect(fn).toThrow(expect.objectContaining({ code: ERROR_CODES.BAD_INPUT, message: expect.stringMatching(message) }));

describe('settings, policy and arm input validation (the BEKO2210/SkillQuarry cordon H09, V2, V5)', () => {
  it('defaults are the reference defaults', () => {
    expect(resolveSettings({ allow: ['src/**'] })).toEqual({
      policy: { allow: ['src/**'], deny: [], allow_ignored: [], allow_commits: false, limits: DEFAULT_LIMITS },
      verify: { commands: [], timeout_seconds: 300, output_cap: 4 * 1024 * 1024 },
      max_attempts: 3,
      live: false,
    });
    expect(resolveSettings(parsePolicyFile('{"allow": ["src/**"], "live": true}', '.cordon.json')).live).toBe(true);
    expect(resolveSettings(parsePolicyFile('{"allow": ["src/**"], "live": true}', '.cordon.json'), { live: undefined }).live).toBe(true);
    expect(DEFAULT_LIMITS).toEqual({ max_files: 25, max_added_lines: 2000, max_deleted_lines: 1000, max_working_bytes: 2097152, max_binary_files: 2 });
  });

  it('V5: at least one allow glob; at most 256 globs in total', () => {
    bad(() => resolveSettings({}), /at least one --allow glob is required/);
    bad(() => resolveSettings({ allow: Array.from({ length: 200 }, (_, i) => `a${i}`), deny: Array.from({ length: 57 }, (_, i) => `d${i}`) }), /too many globs: 257 > 256/);
    expect(resolveSettings({ allow: Array.from({ length: 256 }, (_, i) => `a${i}`) }).policy.allow).toHaveLength(256);
  });

  it('V2: limits must be non-negative integers', () => {
    for (const v of [-1, 1.5, Number.NaN, true as unknown as number]) bad(() => resolveSettings({ allow: ['x'], maxFiles: v }), /max_files must be a non-negative integer/);
    expect(resolveSettings({ allow: ['x'], maxFiles: 0 }).policy.limits.max_files).toBe(0);
  });

  it('later layers win field by field (file, then flags)', () => {
    const file = parsePolicyFile(JSON.stringify({ allow: ['src/**'], deny: ['src/gen/**'], 'max-files': 4, verify: ['npm test'], 'allow-commits': true }), '.cordon.json');
    const s = resolveSettings(file, { allow: ['lib/**'], maxFiles: 9 });
    expect(s.policy).toMatchObject({ allow: ['lib/**'], deny: ['src/gen/**'], allow_commits: true, limits: { max_files: 9 } });
    expect(s.verify.commands).toEqual(['npm test']);
  });

  it('.cordon.json errors name the file and the key', () => {
    bad(() => parsePolicyFile('{', '.cordon.json'), /\.cordon\.json is not valid JSON/);
    // Where, as an editor counts: line and column (not V8's character position), and the file's path.
    bad(() => parsePolicyFile('{\n  "allow": ["src/**"]\n  "deny": []\n}\n', '.cordon.json', '/r/.cordon.json'), /^\.cordon\.json is not valid JSON: comma expected at line 3, column 3 \(\/r\/\.cordon\.json\)$/);
    bad(() => parsePolicyFile('{"allow": ["a",]}', '.cordon.json'), /^\.cordon\.json is not valid JSON: value expected at line 1, column 16$/);
    // A byte order mark is named, with what to do (jsonc-parser calls it an invalid symbol at line 1, column 1).
    bad(() => parsePolicyFile('\uFEFF{"allow": ["src/**"]}', '.cordon.json', '/r/.cordon.json'), /^\.cordon\.json is not valid JSON: starts with a byte order mark \(U\+FEFF\); save it as UTF-8 without BOM \(\/r\/\.cordon\.json\)$/);
    bad(() => parsePolicyFile('[]', '.cordon.json'), /must hold a JSON object/);
    bad(() => parsePolicyFile('{"allow": "src/**"}', '.cordon.json'), /"allow" must be a list of strings/);
    bad(() => parsePolicyFile('{"max-files": -2}', '.cordon.json'), /^\.cordon\.json: "max-files": expected an integer from 0 to 9007199254740991 but received: -2$/);
    // As the file writes each number, whatever JavaScript would print (1e+30, 100), the last of a repeated key, nested values skipped.
    bad(() => parsePolicyFile('{"max-files": 1e30}', '.cordon.json'), /^\.cordon\.json: "max-files": expected an integer from 0 to 9007199254740991 but received: 1e30$/);
    bad(() => parsePolicyFile('{"max-files": 1E+2, "max-added-lines": -1.50e1}', '.cordon.json'), /^\.cordon\.json: "max-added-lines": expected an integer from 0 to 9007199254740991 but received: -1\.50e1$/);
    // A key given twice is refused before its values are read (JSON.parse would keep the last unseen); a key inside a string is no key.
    bad(() => parsePolicyFile('{"//": "a {\\"max-files\\": 3} note", "verify": ["a"], "max-files": 5, "max-files": 2.5e0}', '.cordon.json'), /^\.cordon\.json: "max-files" is given twice, at line 1, column 54 and again at line 1, column 70; JSON keeps only the last: give each key once$/);
    bad(() => parsePolicyFile('{\n  "allow": ["src/**"],\n  "deny": ["a/**"],\n  "allow": ["lib/**"]\n}\n', '.cordon.json', '/r/.cordon.json'), /^\.cordon\.json: "allow" is given twice, at line 2, column 3 and again at line 4, column 3; JSON keeps only the last: give each key once \(\/r\/\.cordon\.json\)$/);
    expect(() => parsePolicyFile('{"allow": ["a"], "allow": ["b"]}', '.cordon.json')).toThrow(expect.objectContaining({ details: { key: 'allow' } }));
    bad(() => parsePolicyFile('{"verify-timeout": 0}', '.cordon.json'), /^\.cordon\.json: "verify-timeout": expected a number of seconds greater than 0 and at most 604800 but received: 0$/);
    bad(() => parsePolicyFile('{"verify-output-cap": "64"}', '.cordon.json'), /^\.cordon\.json: "verify-output-cap": expected a whole number of bytes from 1 to 9007199254740991 but received: "64"$/);
    bad(() => parsePolicyFile('{"max-attempts": 0}', '.cordon.json'), /^\.cordon\.json: "max-attempts": expected an integer from 1 to 9007199254740991 but received: 0$/);
    bad(() => parsePolicyFile('{"allow-commits": "yes"}', '.cordon.json'), /"allow-commits" must be true or false/);
    bad(() => parsePolicyFile('{"live": 1}', '.cordon.json'), /"live" must be true or false/);
    bad(() => parsePolicyFile('{"max_files": 3}', '.cordon.json'), /unknown key "max_files"/);
    // Names Object.prototype has were taken as known keys and dropped unchecked (`__proto__` with a whole policy in it).
    for (const key of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) bad(() => parsePolicyFile(`{"allow": ["a"], "${key}": {"allow": ["**"]}}`, '.cordon.json'), new RegExp(`^\\.cordon\\.json: unknown key "${key}"`));
    expect(parsePolicyFile('{"$schema": "x", "//": "comment", "allow": ["a"]}', 'f')).toEqual({ allow: ['a'] });
  });

  it('.cordon.json globs and verifiers are checked on their own, so errors name the file key, not the flag', () => {
    const file = (o: object) => () => parsePolicyFile(JSON.stringify(o), '.cordon.json');
    bad(file({ allow: ['/src/**'] }), /^\.cordon\.json: "allow" entry "\/src\/\*\*": a glob must be relative/);
    bad(file({ deny: ['a/../b'] }), /^\.cordon\.json: "deny" entry "a\/\.\.\/b": a glob cannot have a "\.\." path segment/);
    bad(file({ 'allow-ignored': ['ok/**', ''] }), /^\.cordon\.json: "allow-ignored" entry "": a glob cannot be empty$/);
    bad(file({ verify: Array(9).fill('true') }), /^\.cordon\.json: verify: too many verify commands: 9 > 8$/);
    bad(file({ verify: ["'"] }), /^\.cordon\.json: verify: invalid verify command "'": No closing quotation$/);
    bad(file({ 'verify-timeout': 1e9 }), /^\.cordon\.json: "verify-timeout": expected a number of seconds greater than 0 and at most 604800 but received: 1000000000$/);
    // The same values from flags still name the flags.
    bad(() => resolveSettings({ allow: ['/src/**'] }), /^--allow "\/src\/\*\*": a glob must be relative/);
    bad(() => resolveSettings({ allow: ['src/**'], deny: ['a//b'] }), /^--deny "a\/\/b": a glob cannot have an empty path segment/);
    bad(() => resolveSettings({ allow: ['src/**'], allowIgnored: ['x'.repeat(600)] }), /^--allow-ignored "x+\u2026?": a glob cannot be longer than 512 characters \(this one has 600\)$/u);
    bad(() => resolveSettings({ allow: ['x'], verify: Array(9).fill('true') }), /^too many --verify commands: 9 > 8$/);
    // An empty list in the file is fine on its own (flags may supply the globs).
    expect(resolveSettings(parsePolicyFile('{"allow": [], "verify": []}', '.cordon.json'), { allow: ['src/**'] }).policy.allow).toEqual(['src/**']);
  });

  it('H09: arm refuses an empty or over-long label, a bad mode, max attempts 0, blank or unbalanced verifiers', async () => {
    const dir = repo();
    const settings = resolveSettings({ allow: ['src/**'] });
    await expect(arm({ label: '  ', settings }, { repo: dir })).rejects.toMatchObject({ code: ERROR_CODES.BAD_INPUT, message: 'label must not be empty' });
    await expect(arm({ label: 'x'.repeat(16_385), settings }, { repo: dir })).rejects.toMatchObject({ message: 'label is 16385 characters long (after trimming); the limit is 16384' });
    await expect(arm({ label: 'ok', settings, mode: 'Bad Mode' }, { repo: dir })).rejects.toMatchObject({ code: ERROR_CODES.BAD_INPUT });
    bad(() => resolveSettings({ allow: ['x'], maxAttempts: 0 }), /--max-attempts must be an integer >= 1/);
    bad(() => resolveSettings({ allow: ['x'], verify: ['  '] }), /blank/);
    bad(() => resolveSettings({ allow: ['x'], verify: ["'"] }), /No closing quotation/);
    const armed = await arm({ label: `  ${'x'.repeat(16_384)}  `, settings }, { repo: dir });
    expect(armed.config.label).toHaveLength(16_384);
  });
});
