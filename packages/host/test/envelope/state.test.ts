import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/index.js';
import { discoverRepo } from '../../src/envelope/git/repo.js';
import { canonicalBody, canonicalJson } from '../../src/envelope/state/canonical-json.js';
import { fsyncDirectory, writeFileAtomic } from '../../src/io/atomic-write.js';
import { EXCLUDE_LINE, hashFile, registerExclude, sha256 } from '../../src/envelope/state/exclude.js';
import { loadEnvelope, saveAuditAndState } from '../../src/envelope/state/store.js';
import { stateProblem } from '../../src/envelope/state/schema.js';
import { armWith, checkIn, repo, tempDir } from './support.js';

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('state files (the BEKO2210/SkillQuarry cordon H01–H04, H14, T1–T3)', () => {
  it('H01: canonical JSON sorts keys, has no whitespace and ends in one newline', () => {
    expect(canonicalJson({ b: 2, a: 1 })).toBe('{"a":1,"b":2}\n');
    expect(canonicalJson({ z: { y: [3, { d: 1, c: 2 }] }, a: null })).toBe('{"a":null,"z":{"y":[3,{"c":2,"d":1}]}}\n');
  });

  it('writes atomically with mode 0600', () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    writeFileAtomic(file, 'one\n');
    writeFileAtomic(file, 'two\n');
    expect(readFileSync(file, 'utf8')).toBe('two\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('H02: a failed rename re-raises and leaves no temp file', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'state.json'));
    writeFileSync(join(dir, 'state.json', 'occupied'), 'x');
    expect(() => writeFileAtomic(join(dir, 'state.json'), '{}\n')).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('H03: a directory fsync tolerates EINVAL, ENOTSUP and EACCES and raises EIO', () => {
    const ops = (failure: string, at: 'open' | 'fsync') => ({
      openSync: () => {
        if (at === 'open') throw errno(failure);
        return 99;
      },
      fsyncSync: () => {
        if (at === 'fsync') throw errno(failure);
      },
      closeSync: () => undefined,
    });
    for (const code of ['EINVAL', 'ENOTSUP', 'EACCES']) {
      expect(() => fsyncDirectory('/x', ops(code, 'open'))).not.toThrow();
      expect(() => fsyncDirectory('/x', ops(code, 'fsync'))).not.toThrow();
    }
    expect(() => fsyncDirectory('/x', ops('EIO', 'open'))).toThrow('EIO');
    expect(() => fsyncDirectory('/x', ops('EIO', 'fsync'))).toThrow('EIO');
  });

  it('a verdict writes audit.json and state.json with three fsyncs: both files, then their directory once', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    const { audit, state } = await checkIn(dir);
    const loc = await discoverRepo(dir);
    const saved = saveAuditAndState(loc.root, audit, state);
    expect(readFileSync(join(loc.root, '.cordon', 'audit.json'), 'utf8')).toBe(canonicalJson(audit));
    expect(readFileSync(join(loc.root, '.cordon', 'state.json'), 'utf8')).toBe(canonicalJson(saved));
    expect(readdirSync(join(loc.root, '.cordon')).sort()).toEqual(['audit.json', 'config.json', 'snapshot.json', 'state.json']);
    // Which fsyncs: counted by strace where it is installed (Debian's strace on the test machines).
    const store = join(import.meta.dirname, '../../dist/envelope/state/store.js');
    const script = `const { saveAuditAndState, loadEnvelope } = await import(${JSON.stringify(store)}); const loc = ${JSON.stringify(loc)}; const e = loadEnvelope(loc); saveAuditAndState(loc.root, e.state.last_audit, e.state);`;
    const traced = spawnSync('strace', ['-f', '-e', 'trace=fsync,fdatasync', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' });
    if (traced.error && (traced.error as NodeJS.ErrnoException).code === 'ENOENT') return;
    expect(traced.status, traced.stderr).toBe(0);
    expect(traced.stderr.split('\n').filter((line) => /\bf(data)?sync\(/.test(line))).toHaveLength(3);
  });

  it('H04: hashing a missing file is a state error', () => {
    expect(() => hashFile(join(tempDir(), 'nope'))).toThrow(expect.objectContaining({ code: ERROR_CODES.BAD_STATE }));
  });

  it('H14: the exclude marker is added once, keeps odd bytes and the file mode', () => {
    const file = join(tempDir(), 'info', 'exclude');
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, Buffer.from([0x23, 0x20, 0xff, 0x0a, 0x2a, 0x2e, 0x6f]));
    chmodSync(file, 0o640);
    const first = registerExclude(file);
    const second = registerExclude(file);
    expect(second).toBe(first);
    const content = readFileSync(file);
    expect(content.equals(Buffer.concat([Buffer.from([0x23, 0x20, 0xff, 0x0a, 0x2a, 0x2e, 0x6f]), Buffer.from(`\n${EXCLUDE_LINE}\n`)]))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  it('H14: a new exclude file is created 0644; an armed repo keeps 0644', async () => {
    const file = join(tempDir(), 'info', 'exclude');
    registerExclude(file);
    expect(readFileSync(file, 'utf8')).toBe(`${EXCLUDE_LINE}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    const dir = repo();
    const exclude = join(dir, '.git', 'info', 'exclude');
    const before = statSync(exclude).mode & 0o777;
    await armWith(dir, { allow: ['src/**'] });
    expect(statSync(exclude).mode & 0o777).toBe(before);
    expect(readFileSync(exclude, 'utf8').split('\n')).toContain(EXCLUDE_LINE);
  });

  it('H14: changing info/exclude after arming is a state error', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    writeFileSync(join(dir, '.git', 'info', 'exclude'), 'evil/\n', { flag: 'a' });
    const loc = await discoverRepo(dir);
    expect(() => loadEnvelope(loc)).toThrow(/info\/exclude changed after cordon was armed; restore the content it had then .* or run `cordon reset` and arm again$/);
  });

  it('T1/T2: a missing file, non-object JSON, or a malformed stored audit are state errors', async () => {
    expect(stateProblem([])).toMatch(/not a JSON object/);
    const dir = repo();
    const env = await armWith(dir, { allow: ['src/**'] });
    const loc = await discoverRepo(dir);
    const state = JSON.parse(readFileSync(env.paths.state, 'utf8'));
    for (const audit of [[], { violations: [] }]) {
      writeFileSync(env.paths.state, canonicalJson({ ...state, last_audit: audit }));
      expect(() => loadEnvelope(loc)).toThrow(/last_audit is malformed/);
    }
    writeFileSync(env.paths.state, '[1,2]\n');
    expect(() => loadEnvelope(loc)).toThrow(/state is not a JSON object/);
    writeFileSync(env.paths.state, 'garbage');
    expect(() => loadEnvelope(loc)).toThrow(/state is not valid JSON .*\(the envelope is damaged; run `cordon reset` and arm again\)$/);
    const { unlinkSync } = await import('node:fs');
    unlinkSync(env.paths.config);
    expect(() => loadEnvelope(loc)).toThrow(/^the cordon config is missing from \.cordon\/ \(the envelope is damaged; run `cordon reset` and arm again\)$/);
  });

  it('T3: the schema and integrity matrix; an untouched envelope loads', async () => {
    const dir = repo();
    const env = await armWith(dir, { allow: ['src/**'], verify: ['true'] });
    const loc = await discoverRepo(dir);
    expect(loadEnvelope(loc).state.phase).toBe('armed');
    const config0 = JSON.parse(readFileSync(env.paths.config, 'utf8'));
    const state0 = JSON.parse(readFileSync(env.paths.state, 'utf8'));
    const put = (config: object, state: object, rehash = true) => {
      writeFileSync(env.paths.config, canonicalJson(config));
      writeFileSync(env.paths.state, canonicalJson(rehash ? { ...state, config_sha256: sha256(canonicalBody(config)) } : state));
    };
    const stateCases: Array<[string, object, RegExp]> = [
      ['schema 2', { schema_version: 2 }, /schema_version/],
      ['schema "1"', { schema_version: '1' }, /schema_version/],
      ['attempt true', { attempt: true }, /attempt/],
      ['max_attempts 0', { max_attempts: 0 }, /max_attempts/],
      ['bad phase', { phase: 'agent_finished' }, /phase/],
      ['attempt > max', { attempt: 4, max_attempts: 3 }, /exceeds max_attempts/],
      ['last_error 7', { last_error: 7 }, /last_error/],
      ['empty updated_at', { updated_at: '' }, /updated_at/],
      ['extra key', { extra: 1 }, /unknown key "extra"/],
    ];
    for (const [name, patch, message] of stateCases) {
      put(config0, { ...state0, ...patch });
      expect(() => loadEnvelope(loc), name).toThrow(message);
    }
    const configCases: Array<[string, object, RegExp]> = [
      ['bad baseline', { baseline: 'not-hex' }, /baseline/],
      ['bad mode', { mode: 'Manual Mode' }, /mode/],
      ['empty label', { label: '' }, /label/],
      ['verify as string', { verify: 'true' }, /verify/],
      ['oversize verifier', { verify: { ...config0.verify, commands: [`x${' '.repeat(4096)}`] } }, /longer than 4096/],
      ['NaN timeout', { verify: { ...config0.verify, timeout_seconds: null } }, /verify-timeout/],
      ['runner []', { runner: [] }, /runner/],
      ['empty created_at', { created_at: '' }, /created_at/],
      ['V4 extra policy key', { policy: { ...config0.policy, extra: true } }, /policy has unknown key/],
      ['V4 non-list allow', { policy: { ...config0.policy, allow: 'src/**' } }, /allow is not a list/],
      ['V4 non-string deny', { policy: { ...config0.policy, deny: [1] } }, /policy deny: a glob must be a string/],
      ['V4 limits as list', { policy: { ...config0.policy, limits: [] } }, /limits is not an object/],
      ['V4 partial limits', { policy: { ...config0.policy, limits: { max_files: 1 } } }, /lacks key/],
      ['V4 allow_commits string', { policy: { ...config0.policy, allow_commits: 'yes' } }, /allow_commits/],
      ['V4 empty allow', { policy: { ...config0.policy, allow: [] } }, /at least one --allow/],
      ['V2 limit -1', { policy: { ...config0.policy, limits: { ...config0.policy.limits, max_files: -1 } } }, /max_files must be a non-negative integer/],
      ['V2 limit true', { policy: { ...config0.policy, limits: { ...config0.policy.limits, max_files: true } } }, /max_files must be a non-negative integer/],
    ];
    for (const [name, patch, message] of configCases) {
      put({ ...config0, ...patch }, state0);
      expect(() => loadEnvelope(loc), name).toThrow(message);
    }
    put({ ...config0, label: 'tampered' }, state0, false);
    expect(() => loadEnvelope(loc)).toThrow(/does not match the hash/);
    put(config0, state0);
    expect(loadEnvelope(loc).state).toEqual(state0);
    const snap = JSON.parse(readFileSync(env.paths.snapshot, 'utf8'));
    writeFileSync(env.paths.snapshot, canonicalJson({ ...snap, submodules: { x: 'changed' } }));
    expect(() => loadEnvelope(loc)).toThrow(/snapshot.json does not match/);
    expect(existsSync(env.paths.dir)).toBe(true);
  });
});

describe('--repo that is no directory', () => {
  it('says what is wrong with the path: missing, a file, or below a file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), 'x');
    for (const [path, why] of [
      [join(dir, 'missing'), 'no such directory'],
      [join(dir, 'file'), 'not a directory'],
      [join(dir, 'file', 'below'), 'not a directory'],
    ] as const) {
      await expect(discoverRepo(path)).rejects.toMatchObject({ code: ERROR_CODES.BAD_INPUT, message: `--repo ${JSON.stringify(path)}: ${why}` });
    }
  });
});
