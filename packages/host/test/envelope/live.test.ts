import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { check } from '../../src/envelope/check.js';
import { findWorkTree, readLiveEnvelope, type LiveEnvelope } from '../../src/envelope/live/armed.js';
import { LIVE_ENVELOPE_BY, liveWriteDecision } from '../../src/envelope/live/decision.js';
import { judgeChange, judgeWrite } from '../../src/envelope/live/judge.js';
import { liveDecisionFor } from '../../src/envelope/live/route.js';
import { compilePathRules } from '../../src/envelope/policy/policy.js';
import { patchTargets } from '../../../../plugins/codex/src/dialect/patch.js';
import { armWith, commitAll, repo, tempDir } from './support.js';

const POLICY = { allow: ['src/**', '.gitattributes', 'docs/link/**'], deny: ['src/secret/**'], live: true } as const;

/** A real repository armed live with {@link POLICY}, with committed links: in-repo both ways, out of it, dangling, looping. */
async function armedRepo(): Promise<{ root: string; outside: string; envelope: LiveEnvelope }> {
  const root = realpathSync(repo({ 'src/app.py': 'print(1)\n', 'docs/readme.md': '# d\n' }));
  const outside = realpathSync(tempDir('outside'));
  symlinkSync(outside, join(root, 'src/out'));
  symlinkSync('../docs', join(root, 'src/to-docs'));
  symlinkSync('../src', join(root, 'docs/link'));
  symlinkSync(join(outside, 'created-by-dangling'), join(root, 'src/dangling'));
  symlinkSync('loop-b', join(root, 'src/loop-a'));
  symlinkSync('loop-a', join(root, 'src/loop-b'));
  commitAll(root, 'links');
  await armWith(root, POLICY);
  const tree = findWorkTree(join(root, 'src'));
  expect(tree).toEqual({ root, armed: true });
  const envelope = readLiveEnvelope(root);
  expect(envelope).toBeDefined();
  return { root, outside, envelope: envelope! };
}

/** The live judgement of `target` (relative to `cwd`) and what `check` says once the file is written there. */
async function judgeAndCheck(root: string, envelope: LiveEnvelope, target: string, cwd = root) {
  const judgement = judgeWrite(target, { root, cwd, rules: compilePathRules(envelope.policy) });
  const path = join(cwd, target);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, 'written\n');
  const result = await check({ repo: root });
  return { judgement, passed: result.audit.passed, violations: result.audit.violations.map((v) => v.code) };
}

describe('the live envelope judges a write as check judges the change it makes', () => {
  it('allows a path inside --allow, and check accepts the written file', async () => {
    const { root, envelope } = await armedRepo();
    const { judgement, passed } = await judgeAndCheck(root, envelope, 'src/new.py');
    expect(judgement).toMatchObject({ allowed: true, path: 'src/new.py' });
    expect(passed).toBe(true);
  });

  it('refuses a path outside every --allow, naming the glob rule as check does', async () => {
    const { root, envelope } = await armedRepo();
    const { judgement, passed, violations } = await judgeAndCheck(root, envelope, 'docs/new.md');
    expect(judgement).toMatchObject({ allowed: false, rule: 'policy', path: 'docs/new.md', why: 'path outside policy: docs/new.md (matches no allow glob)' });
    expect(passed).toBe(false);
    expect(violations).toContain('path_outside_policy');
  });

  it('refuses a path under a --deny glob even inside --allow', async () => {
    const { root, envelope } = await armedRepo();
    const { judgement, passed } = await judgeAndCheck(root, envelope, 'src/secret/key.pem');
    expect(judgement).toMatchObject({ allowed: false, rule: 'policy', why: 'path outside policy: src/secret/key.pem (matches the deny glob src/secret/**)' });
    expect(passed).toBe(false);
  });

  it('refuses a relative path that leaves the allowed tree from a subdirectory cwd', async () => {
    const { root, envelope } = await armedRepo();
    const { judgement, passed } = await judgeAndCheck(root, envelope, '../docs/other.md', join(root, 'src'));
    expect(judgement).toMatchObject({ allowed: false, rule: 'policy', path: 'docs/other.md' });
    expect(passed).toBe(false);
  });

  it('refuses .gitattributes even when a glob allows it (check rejects every attributes change)', async () => {
    const { root, envelope } = await armedRepo();
    const { judgement, violations } = await judgeAndCheck(root, envelope, '.gitattributes');
    expect(judgement).toMatchObject({ allowed: false, rule: 'attributes' });
    expect(violations).toContain('attributes_changed');
  });

  it('judges where a link inside the repository leads: through src/to-docs the write lands in docs/ and is refused', async () => {
    const { root, envelope } = await armedRepo();
    const { judgement, passed } = await judgeAndCheck(root, envelope, 'src/to-docs/through.md');
    expect(judgement).toMatchObject({ allowed: false, rule: 'policy', path: 'docs/through.md' });
    expect(passed).toBe(false);
  });

  it('allows a write that a link leads into the allowed tree (docs/link → src), and check agrees', async () => {
    const { root, envelope } = await armedRepo();
    const { judgement, passed } = await judgeAndCheck(root, envelope, 'docs/link/via-link.py');
    expect(judgement).toMatchObject({ allowed: true, path: 'src/via-link.py' });
    expect(passed).toBe(true);
  });

  it('resolves .. after a link as the kernel does (src/to-docs/../x is docs/../x = x at the root)', async () => {
    const { root, envelope } = await armedRepo();
    const judgement = judgeWrite('src/to-docs/../top.txt', { root, cwd: root, rules: compilePathRules(envelope.policy) });
    expect(judgement).toMatchObject({ allowed: false, rule: 'policy', path: 'top.txt' });
  });
});

describe('a `..` after a link is judged both ways: as the kernel resolves it and as an agent that normalises the path writes it', () => {
  // Gemini CLI writes path.resolve(targetDir, file_path), Codex AbsolutePathBuf::resolve_path_against_base:
  // both take `..` off the name before any link is read. judgeAndCheck writes the file that way (join).
  it('refuses docs/link/../src/x.py (the kernel lands in src/, allowed; Gemini and Codex write docs/src/x.py, which check rejects)', async () => {
    const { root, envelope } = await armedRepo();
    const { judgement, passed } = await judgeAndCheck(root, envelope, 'docs/link/../src/x.py');
    expect(passed).toBe(false);
    expect(judgement).toMatchObject({ allowed: false, rule: 'policy', path: 'docs/src/x.py' });
  });

  it('allows a spelling whose two readings are both inside the policy, and check agrees', async () => {
    const { root, envelope } = await armedRepo();
    const { judgement, passed } = await judgeAndCheck(root, envelope, 'src/to-docs/../src/new.py');
    expect(judgement).toMatchObject({ allowed: true, path: 'src/new.py' });
    expect(passed).toBe(true);
  });

  it('normalises a relative target from the working directory as the agent reported it: a cwd reached through a link out of the repository', async () => {
    const { root, envelope } = await armedRepo();
    // The agent reports cwd root/src/out, a link to a directory outside: the kernel starts
    // ../../docs/x.md there (outside, no armed tree); normalised from the cwd as named it is root/docs/x.md.
    const decision = liveDecisionFor([{ path: '../../docs/x.md', kind: 'write' }], join(root, 'src/out'));
    expect(decision?.reason).toContain('path outside policy: docs/x.md');
    const rules = compilePathRules(envelope.policy);
    expect(judgeChange({ path: 'new.py', kind: 'write' }, { root, cwd: join(root, 'src'), namedCwd: join(root, 'docs/link'), rules })).toMatchObject({ allowed: true, path: 'src/new.py' });
  });
});

describe('spellings the file system keeps apart are judged apart, as check judges them (Linux: bytes)', () => {
  it('NFC and NFD forms of a name are two paths: a --deny glob in NFC refuses the NFC write, and check agrees on both', async () => {
    const root = realpathSync(repo({ 'src/app.py': 'print(1)\n' }));
    await armWith(root, { allow: ['src/**'], deny: ['src/caf\u00e9/**'], live: true });
    const envelope = readLiveEnvelope(root)!;
    const nfd = await judgeAndCheck(root, envelope, 'src/cafe\u0301/x.py');
    expect(nfd).toMatchObject({ judgement: { allowed: true }, passed: true });
    const nfc = await judgeAndCheck(root, envelope, 'src/caf\u00e9/x.py');
    expect(nfc).toMatchObject({ judgement: { allowed: false, rule: 'policy' }, passed: false });
  });

  it('on a case-sensitive file system .CORDON/ and .GIT/ are ordinary directories: judged by the globs, as check does', async () => {
    const root = realpathSync(repo({ 'src/app.py': 'print(1)\n' }));
    await armWith(root, { allow: ['**'], live: true });
    const envelope = readLiveEnvelope(root)!;
    const upper = await judgeAndCheck(root, envelope, '.CORDON/x');
    expect(upper).toMatchObject({ judgement: { allowed: true }, passed: true });
  });

  it('knows .git by identity, not only by name: a hard link to a work tree\'s .git file is refused too', async () => {
    const root = realpathSync(repo({ 'src/app.py': 'print(1)\n' }));
    await armWith(root, { allow: ['**'], live: true });
    const rules = compilePathRules(readLiveEnvelope(root)!.policy);
    // A linked work tree's (or a submodule's) .git is a file naming the git dir; here a file of the same kind.
    const gitFile = realpathSync(tempDir('worktree'));
    writeFileSync(join(gitFile, '.git'), `gitdir: ${join(root, '.git')}\n`);
    const { linkSync } = await import('node:fs');
    linkSync(join(gitFile, '.git'), join(gitFile, '.alias'));
    expect(judgeWrite('.alias', { root: gitFile, cwd: gitFile, rules })).toMatchObject({ allowed: false, rule: 'git-dir' });
    expect(judgeWrite('.other', { root: gitFile, cwd: gitFile, rules })).toMatchObject({ allowed: true });
    expect(judgeWrite('.git', { root: gitFile, cwd: gitFile, rules })).toMatchObject({ allowed: false, rule: 'git-dir' });
  });

  it('refuses .git/ and a nested .git component whatever the globs say: check never sees a change there', async () => {
    const root = realpathSync(repo({ 'src/app.py': 'print(1)\n' }));
    await armWith(root, { allow: ['**'], live: true });
    const envelope = readLiveEnvelope(root)!;
    const hook = await judgeAndCheck(root, envelope, '.git/hooks/pre-commit');
    // The write is invisible to check, which passes: that is why the live envelope refuses it.
    expect(hook).toMatchObject({ judgement: { allowed: false, rule: 'git-dir' }, passed: true });
    expect(judgeWrite('src/vendor/.git/config', { root, cwd: root, rules: compilePathRules(envelope.policy) })).toMatchObject({ allowed: false, rule: 'git-dir' });
    expect(judgeWrite('src/.gitkeep', { root, cwd: root, rules: compilePathRules(envelope.policy) })).toMatchObject({ allowed: true });
  });
});

describe('an --allow-ignored path is left to check, which alone can tell whether git ignores it', () => {
  it('lets an ignored, --allow-ignored write through, and check accepts it; an ignored path outside every glob is refused, and check rejects it', async () => {
    const root = realpathSync(repo({ 'src/app.py': 'print(1)\n', '.gitignore': 'build/\ncache/\n' }));
    await armWith(root, { allow: ['src/**'], allowIgnored: ['build/**'], live: true });
    const envelope = readLiveEnvelope(root)!;
    const built = await judgeAndCheck(root, envelope, 'build/out.js');
    expect(built.judgement).toMatchObject({ allowed: true, path: 'build/out.js' });
    expect(built.passed).toBe(true);
    const cached = await judgeAndCheck(root, envelope, 'cache/x');
    expect(cached.judgement).toMatchObject({ allowed: false, rule: 'policy' });
    expect(cached.violations).toContain('ignored_new');
  });
});

describe('the live envelope refuses what check cannot see or what escapes the repository', () => {
  it('refuses a write through a symlink that leads out of the repository', async () => {
    const { root, outside, envelope } = await armedRepo();
    const rules = compilePathRules(envelope.policy);
    expect(judgeWrite('src/out/x.py', { root, cwd: root, rules })).toMatchObject({ allowed: false, rule: 'symlink-escape', why: `a symbolic link on its way leads out of the repository, to ${join(outside, 'x.py')}` });
    // A dangling link: writing through it would create its target outside the repository.
    expect(judgeWrite(join(root, 'src/dangling'), { root, cwd: root, rules })).toMatchObject({ allowed: false, rule: 'symlink-escape' });
    expect(judgeWrite('src/loop-a', { root, cwd: root, rules })).toMatchObject({ allowed: false, rule: 'symlink-escape', why: 'its symbolic links loop' });
  });

  it('refuses a path outside the repository, absolute or relative', async () => {
    const { root, outside, envelope } = await armedRepo();
    const rules = compilePathRules(envelope.policy);
    expect(judgeWrite(join(outside, 'a.txt'), { root, cwd: root, rules })).toMatchObject({ allowed: false, rule: 'outside-repository' });
    expect(judgeWrite('../../elsewhere.txt', { root, cwd: join(root, 'src'), rules })).toMatchObject({ allowed: false, rule: 'outside-repository' });
  });

  it('refuses .cordon/ whatever the globs say', async () => {
    const { root } = await armedRepo();
    const rules = compilePathRules({ allow: ['**'], deny: [], allow_ignored: [] });
    for (const target of ['.cordon/state.json', '.cordon', 'src/../.cordon/config.json']) {
      expect(judgeWrite(target, { root, cwd: root, rules })).toMatchObject({ allowed: false, rule: 'state-dir' });
    }
  });
});

describe('the armed live envelope is found without git', () => {
  it('is undefined for an envelope armed without live, and outside every work tree', async () => {
    const root = realpathSync(repo());
    await armWith(root, { allow: ['src/**'] });
    expect(findWorkTree(join(root, 'src'))).toEqual({ root, armed: true });
    expect(readLiveEnvelope(root)).toBeUndefined();
    // The stored flag is part of the validated config: check and status refuse a non-boolean.
    const { configProblem } = await import('../../src/envelope/state/schema.js');
    const config = JSON.parse((await import('node:fs')).readFileSync(join(root, '.cordon/config.json'), 'utf8'));
    expect(config.live).toBeUndefined();
    expect(configProblem(config)).toBeUndefined();
    expect(configProblem({ ...config, live: true })).toBeUndefined();
    expect(configProblem({ ...config, live: 'yes' })).toBe('config live is not a boolean');
    const plain = realpathSync(tempDir('plain'));
    expect(findWorkTree(plain)?.root).not.toBe(plain);
  });

  it('stops at the nearest .git: a repository inside an armed one is not armed', async () => {
    const { root } = await armedRepo();
    const inner = join(root, 'src/inner');
    mkdirSync(join(inner, '.git'), { recursive: true });
    expect(findWorkTree(inner)).toEqual({ root: inner, armed: false });
  });

  it('ignores an envelope armed in another place (a moved tree) and refuses a damaged policy', async () => {
    const { root } = await armedRepo();
    const config = join(root, '.cordon/config.json');
    const text = (await import('node:fs')).readFileSync(config, 'utf8');
    writeFileSync(config, text.replace(JSON.stringify(root), JSON.stringify('/elsewhere')));
    expect(readLiveEnvelope(root)).toBeUndefined();
    writeFileSync(config, text.replace('"allow":["src/**"', '"allow":["/abs"'));
    expect(() => readLiveEnvelope(root)).toThrow(/must be relative/);
  });
});

describe('a deny names every refused target, the rule and the allowed globs', () => {
  it('judges every file of a Codex patch: an allowed update moved out of the policy is refused', async () => {
    const { root, envelope } = await armedRepo();
    const patch = ['*** Begin Patch', '*** Update File: src/app.py', '*** Move to: docs/app.py', '@@', '-print(1)', '+print(2)', '*** Add File: src/ok.py', '+x', '*** Delete File: src/secret/old.pem', '*** End Patch'].join('\n');
    const decision = liveWriteDecision(patchTargets(patch), envelope, root);
    expect(decision).toMatchObject({ kind: 'deny', by: LIVE_ENVELOPE_BY });
    const reason = decision!.kind === 'deny' ? decision!.reason : '';
    expect(reason).toContain('docs/app.py: path outside policy: docs/app.py (matches no allow glob)');
    expect(reason).toContain('src/secret/old.pem: path outside policy: src/secret/old.pem (matches the deny glob src/secret/**)');
    expect(reason).not.toContain('src/ok.py:');
    expect(reason).toContain('matching src/**, .gitattributes, docs/link/** (--allow), except paths matching src/secret/** (--deny)');
    expect(liveWriteDecision(['src/ok.py', join(root, 'src/also.py')], envelope, root)).toBeUndefined();
  });

  it('escapes a target name that holds control characters', async () => {
    const { root, envelope } = await armedRepo();
    const decision = liveWriteDecision(['docs/\u001b[31mred\n.md'], envelope, root);
    const reason = decision!.kind === 'deny' ? decision!.reason : '';
    expect(reason).not.toMatch(/[\u0000-\u001f]/);
    expect(reason).toContain('\\u001b');
  });
});

describe('arm --live says which agents can be refused a write', () => {
  it('names the dialects with writeTargets as refusing and Aider (no write tool a hook sees) as not', async () => {
    const { liveCoverage, liveCoverageText } = await import('../../src/envelope/live/coverage.js');
    const { aiderDialectEntry } = await import('../../../../plugins/aider/src/dialect/entry.js');
    const { claudeCodeDialect } = await import('../../../../plugins/claude-code/src/dialect/entry.js');
    const { cursorDialect } = await import('../../../../plugins/cursor/src/dialect/entry.js');
    const broken = { name: 'broken', load: () => Promise.reject(new Error('no')) };
    const coverage = await liveCoverage([aiderDialectEntry, claudeCodeDialect, cursorDialect, broken], ['claude-code', 'cursor']);
    expect(coverage).toEqual({ refusing: ['claude-code', 'cursor'], notRefusing: ['aider', 'broken'], notHooked: [] });
    const text = liveCoverageText(coverage);
    expect(text).toContain('refused before it happens for claude-code, cursor');
    // Only the hooked ones are refused; with none hooked, the line says so.
    expect(await liveCoverage([claudeCodeDialect, cursorDialect], ['cursor'])).toMatchObject({ refusing: ['cursor'], notHooked: ['claude-code'] });
    expect(liveCoverageText(await liveCoverage([claudeCodeDialect], []))).toMatch(/^live: no agent has cordon's hooks installed here, so nothing is refused yet/);
    expect(text).toContain('no hook can refuse a write for aider, broken, so only `cordon check` judges those writes');
    expect(text).toContain('shell commands are not judged live');
  });
});

describe('how a call changes a path decides whether a final symbolic link is followed', () => {
  it('judges a removed link by its own path, a written one where it leads, a replaced one both ways', async () => {
    const { root, envelope } = await armedRepo();
    symlinkSync('../src/app.py', join(root, 'docs/to-app'));
    const rules = compilePathRules(envelope.policy);
    const judge = (path: string, kind: 'write' | 'remove' | 'replace') => judgeChange({ path, kind }, { root, cwd: root, rules });
    expect(judge('docs/to-app', 'write')).toMatchObject({ allowed: true, path: 'src/app.py' });
    expect(judge('docs/to-app', 'remove')).toMatchObject({ allowed: false, rule: 'policy', path: 'docs/to-app' });
    expect(judge('docs/to-app', 'replace')).toMatchObject({ allowed: false, rule: 'policy', path: 'docs/to-app' });
    // src/out leads out of the repository: removing the link is inside it, writing through it is not.
    expect(judge('src/out', 'remove')).toMatchObject({ allowed: true, path: 'src/out' });
    expect(judge('src/out', 'replace')).toMatchObject({ allowed: false, rule: 'symlink-escape' });
    expect(judge('src/loop-a', 'remove')).toMatchObject({ allowed: true, path: 'src/loop-a' });
    // A link among the parents is followed whatever the kind: src/to-docs/readme.md is docs/readme.md.
    for (const kind of ['write', 'remove', 'replace'] as const) expect(judge('src/to-docs/readme.md', kind)).toMatchObject({ allowed: false, path: 'docs/readme.md' });
  });

  it('judges a plain path, or a kind this build does not know, as a replace', async () => {
    const { root } = await armedRepo();
    symlinkSync('../src/app.py', join(root, 'docs/to-app'));
    expect(liveDecisionFor([join(root, 'docs/to-app')], root)?.reason).toContain('docs/to-app');
    expect(liveDecisionFor([{ path: join(root, 'docs/to-app'), kind: 'truncate' as never }], root)?.reason).toContain('docs/to-app');
    expect(liveDecisionFor([{ path: join(root, 'docs/to-app'), kind: 'write' }], root)).toBeUndefined();
    expect(liveDecisionFor([{ path: join(root, 'src/out'), kind: 'remove' }], root)).toBeUndefined();
  });
});
