import { mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { armWith, repo, tempDir } from '../envelope/support.js';
import { AGENT_PLUGINS, FIXTURES, hookViaSocket, PATIENT_HOOK_ENV } from './support.js';

// The live envelope under hostile paths, through the built `cordon hook` with payloads shaped as
// the agents send them (the captured fixtures, their paths pointed at a real armed repository):
// every spelling of a path outside the policy is refused, every spelling of one inside it runs,
// and whatever the input, the hook exits 0 and prints nothing but its decision.

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
/** Armed live with --allow 'src/**' --deny 'src/secret/**'. */
let root: string;
/** Armed live with --allow '**': only the rules beyond the globs refuse there. */
let open: string;
/** A link to {@link root}, as a user reaches a repository through a linked directory. */
let link: string;
let outside: string;

beforeAll(async () => {
  sandbox = makeSandbox('cordon-live-paths-');
  linkPluginRoots(sandbox.dataDir, AGENT_PLUGINS);
  env = { ...sandbox.env, ...PATIENT_HOOK_ENV };
});
afterAll(() => sandbox.cleanup());

// The repositories are made for each test: envelope/support.ts removes its temp dirs after each.
beforeEach(async () => {
  root = realpathSync(repo({ 'src/app.py': 'print(1)\n', 'README.md': '# r\n' }));
  await armWith(root, { allow: ['src/**'], deny: ['src/secret/**'], live: true });
  open = realpathSync(repo({ 'src/app.py': 'print(1)\n', 'README.md': '# r\n' }));
  await armWith(open, { allow: ['**'], live: true });
  outside = realpathSync(tempDir('outside'));
  link = join(outside, 'link-to-repo');
  symlinkSync(root, link);
}, 60_000);

function fixture(name: string): Record<string, any> {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
}

/** A captured Claude Code PreToolUse payload for `tool` writing `path` (`field` names it), from `cwd`. */
function claude(path: unknown, cwd: string, tool = 'Write', field = 'file_path', extra: Record<string, unknown> = {}): Record<string, unknown> {
  const p = fixture('claude-code.PreToolUse.Write.json');
  return { ...p, cwd, tool_name: tool, tool_input: { [field]: path, content: 'x\n', ...extra } };
}

/** A captured Codex PreToolUse payload: `apply_patch` with `patch`, or a shell call (`Bash`) running `command`. */
function codex(cwd: string, input: { patch?: string; command?: string }): Record<string, unknown> {
  const p = fixture('codex.PreToolUse.apply_patch.json');
  return input.patch !== undefined ? { ...p, cwd, tool_input: { command: input.patch } } : { ...p, cwd, tool_name: 'Bash', tool_input: { command: input.command } };
}

function gemini(path: string, cwd: string): Record<string, unknown> {
  const p = fixture('gemini-cli.BeforeTool.write_file.json');
  return { ...p, cwd, tool_input: { file_path: path, content: 'x\n' } };
}

const AGENT_OF = (payload: Record<string, unknown>) => ('turn_id' in payload ? 'codex' : 'timestamp' in payload ? 'gemini' : 'claude-code');

/** Runs the built hook on `payload`: the refusal's reason, or undefined when it let the call run. It must exit 0 and print nothing else. */
async function hook(payload: Record<string, unknown>): Promise<string | undefined> {
  const result = await hookViaSocket(['--agent', AGENT_OF(payload)], JSON.stringify(payload), false, env);
  expect(result.exitCode, result.stderr).toBe(0);
  expect(result.stderr).toBe('');
  if (result.stdout === '') return undefined;
  const out = JSON.parse(result.stdout);
  const reason: string = out.hookSpecificOutput?.permissionDecisionReason ?? out.reason;
  expect(reason).toContain("cordon's live envelope refused this write");
  return reason;
}

const patch = (...headers: string[]) => ['*** Begin Patch', ...headers, '*** End Patch', ''].join('\n');

describe('every spelling of a path is judged where it lands', () => {
  it('refuses `..`, `./`, doubled and trailing slashes that reach outside the policy, and allows those that stay inside', async () => {
    expect(await hook(claude(`${root}/src/../README.md`, root))).toContain('path outside policy: README.md');
    expect(await hook(claude(`${root}//src///secret//key.pem`, root))).toContain('matches the deny glob src/secret/**');
    expect(await hook(claude(`${root}/./src/./new.py`, root))).toBeUndefined();
    expect(await hook(claude(`${root}/src//new.py/`, root))).toBeUndefined();
    expect(await hook(claude(`${root}/src/secret/../ok.py`, root))).toBeUndefined();
  }, 60_000);

  it('refuses .cordon/ however it is spelled', async () => {
    for (const spelling of [`${root}/.cordon/../.cordon/config.json`, `${root}/./.cordon/state.json`, `${root}/src/../.cordon`, `${root}/.cordon/`]) {
      expect(await hook(claude(spelling, root)), spelling).toContain('.cordon/ holds the armed envelope');
    }
    expect(await hook(codex(join(root, 'src'), { patch: patch('*** Add File: ./../.cordon/x', '+x') }))).toContain('.cordon/ holds the armed envelope');
  }, 60_000);

  it('judges a `..` after a link also as Gemini CLI and Codex write it, normalised (path.resolve, AbsolutePathBuf), from inside and outside the repository', async () => {
    mkdirSync(join(root, 'src/a/b'), { recursive: true });
    symlinkSync('a/b', join(root, 'src/deep'));
    mkdirSync(join(outside, 'a/b'), { recursive: true });
    symlinkSync(join(outside, 'a/b'), join(outside, 'l'));
    // The kernel lands in src/a/secret (allowed); the agents write src/secret/key.pem (denied).
    expect(await hook(gemini('src/deep/../secret/key.pem', root))).toContain('path outside policy: src/secret/key.pem');
    expect(await hook(codex(root, { patch: patch('*** Add File: src/deep/../secret/key.pem', '+x') }))).toContain('path outside policy: src/secret/key.pem');
    // From outside: the kernel lands in outside/repo-…, no armed tree; normalised, it is the armed README.md.
    expect(await hook(gemini(`${outside}/l/../${relative(outside, root)}/README.md`, outside))).toContain('path outside policy: README.md');
    // A spelling too long for the kernel that normalises into the armed tree: refused from outside as from inside.
    expect(await hook(gemini(`${root}/${'a/../'.repeat(900)}README.md`, outside))).toContain('longer than any path the system accepts');
    // Both readings allowed: runs.
    expect(await hook(gemini('src/deep/../new.py', root))).toBeUndefined();
  }, 60_000);

  it('judges a repository reached through a linked directory (cwd and path given through the link)', async () => {
    expect(await hook(claude(`${link}/README.md`, link))).toContain('path outside policy: README.md');
    expect(await hook(claude(`${link}/src/new.py`, link))).toBeUndefined();
    expect(await hook(codex(link, { patch: patch('*** Add File: README.md', '+x') }))).toContain('path outside policy: README.md');
    expect(await hook(codex(`${link}/src`, { patch: patch('*** Add File: new.py', '+x') }))).toBeUndefined();
  }, 60_000);

  it('judges a write into an armed repository from a cwd outside it, or from a cwd that does not exist', async () => {
    expect(await hook(claude(join(root, 'README.md'), outside))).toContain('path outside policy: README.md');
    expect(await hook(gemini(join(root, '.cordon/config.json'), outside))).toContain('.cordon/ holds the armed envelope');
    expect(await hook(claude(join(root, 'README.md'), join(outside, 'gone')))).toContain('path outside policy: README.md');
    expect(await hook(codex(outside, { patch: patch(`*** Add File: ${join(link, 'README.md')}`, '+x') }))).toContain('path outside policy: README.md');
    expect(await hook(claude(join(root, 'src/new.py'), outside))).toBeUndefined();
    // A write nowhere near an armed repository is not the live envelope's business.
    expect(await hook(claude(join(outside, 'notes.md'), outside))).toBeUndefined();
  }, 60_000);

  it('resolves a relative path against the payload cwd, also a subdirectory (Codex exec_command workdir)', async () => {
    expect(await hook(codex(join(root, 'src'), { patch: patch('*** Add File: ../README.md', '+x') }))).toContain('path outside policy: README.md');
    expect(await hook(codex(join(root, 'src'), { patch: patch('*** Add File: secret/k.pem', '+x') }))).toContain('src/secret/k.pem');
    expect(await hook(codex(join(root, 'src'), { patch: patch('*** Add File: sub/ok.py', '+x') }))).toBeUndefined();
  }, 60_000);

  it('refuses .git/ and any path with a .git component even where the globs allow everything (check cannot see them)', async () => {
    for (const target of ['.git/hooks/pre-commit', '.git/config', 'src/.git/config', '.git']) {
      expect(await hook(claude(join(open, target), open)), target).toContain(".git/ is git's own directory");
    }
    expect(await hook(codex(open, { patch: patch('*** Add File: .git/hooks/post-checkout', '+#!/bin/sh') }))).toContain(".git/ is git's own directory");
    expect(await hook(claude(join(open, 'src/.gitignore'), open))).toBeUndefined();
    expect(await hook(claude(join(open, 'README.md'), open))).toBeUndefined();
  }, 60_000);

  it('names paths with spaces, newlines and control characters escaped and cut, and judges them as named', async () => {
    expect(await hook(claude(join(root, 'src/a b.py'), root))).toBeUndefined();
    expect(await hook(claude(join(root, 'src/a\nb.py'), root))).toBeUndefined();
    const reason = await hook(claude(join(root, 'docs/\u001b]0;pwned\u0007\r\n\u202etxt.md'), root));
    expect(reason).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(reason).toContain('\\u001b]0;pwned\\u0007\\r\\n');
    const long = await hook(claude(join(root, 'docs', 'n'.repeat(3000)), root));
    expect(long!.length).toBeLessThan(1500);
  }, 60_000);

  it('refuses at once a path longer than the system accepts, however many components it has', async () => {
    expect(await hook(claude(`${root}/src/${'a/'.repeat(3000)}x.py`, root))).toContain('longer than any path the system accepts');
    // 200,000 components (1.2 MB) that would each be walked: refused by length, at once.
    const many = await hookViaSocket(['--agent', 'claude-code'], JSON.stringify(claude(`${root}/src/${'a/../'.repeat(200_000)}x.py`, root)), false, env);
    expect(JSON.parse(many.stdout).hookSpecificOutput.permissionDecisionReason).toContain('longer than any path the system accepts');
    expect(await hook(claude(`${root}/src/${'d/'.repeat(1000)}x.py`, root))).toBeUndefined();
  }, 60_000);

  it('judges `~/…` as the home directory, where Claude Code writes it, even where the globs allow everything', async () => {
    // The hook runs in the agent's environment: HOME names the home directory Claude Code expands.
    const home = realpathSync(tempDir('home'));
    const inHome = { ...env, HOME: home };
    for (const [payload, cwd] of [[claude('~/.bashrc', open), open], [claude('~', open), open], [codex(open, { patch: patch('*** Add File: ~/.profile', '+x') }), open]] as const) {
      const r = await hookViaSocket(['--agent', AGENT_OF(payload)], JSON.stringify(payload), false, inHome);
      expect(r.exitCode).toBe(0);
      expect(r.stdout, `${JSON.stringify(payload.tool_input).slice(0, 80)} in ${cwd}`).toContain('outside the repository');
    }
    expect(await hook(claude(join(open, '~not-home/x'), open))).toBeUndefined();
  }, 60_000);

  it('judges NotebookEdit notebook_path and a MB-sized write like any other', async () => {
    expect(await hook(claude(join(root, 'nb.ipynb'), root, 'NotebookEdit', 'notebook_path', { new_source: 'x' }))).toContain('path outside policy: nb.ipynb');
    expect(await hook(claude(join(root, 'README.md'), root, 'Write', 'file_path', { content: 'y'.repeat(8 * 1024 * 1024) }))).toContain('path outside policy: README.md');
    expect(await hook(claude(join(root, 'src/big.py'), root, 'Write', 'file_path', { content: 'y'.repeat(8 * 1024 * 1024) }))).toBeUndefined();
  }, 60_000);

  it('stays silent for a write call without a usable path (the agent refuses such a call itself)', async () => {
    for (const path of [undefined, 42, '', null, ['a'], { p: 1 }]) expect(await hook(claude(path, root))).toBeUndefined();
  }, 60_000);
});

describe('every form of a Codex patch is judged', () => {
  it('refuses a header hidden by leading white space or CRLF line ends', async () => {
    expect(await hook(codex(root, { patch: patch('  *** Add File: README.md', '+x') }))).toContain('path outside policy: README.md');
    expect(await hook(codex(root, { patch: patch('*** Add File: src/ok.py', '+x', '\t*** Delete File: README.md') }))).toContain('README.md');
    expect(await hook(codex(root, { patch: patch('*** Add File: docs/x.md', '+x').replace(/\n/g, '\r\n') }))).toContain('docs/x.md');
  }, 60_000);

  it('refuses a patch run through the shell, in each form Codex intercepts, and in any other', async () => {
    const body = (path: string) => patch(`*** Add File: ${path}`, '+x');
    expect(await hook(codex(root, { command: `apply_patch <<'EOF'\n${body('docs/a.md')}EOF\n` }))).toContain('docs/a.md');
    expect(await hook(codex(root, { command: `cd docs && apply_patch <<'EOF'\n${body('b.md')}EOF\n` }))).toContain('docs/b.md');
    expect(await hook(codex(join(root, 'src'), { command: `applypatch <<EOF\n${body('../c.md')}EOF\n` }))).toContain('c.md');
    expect(await hook(codex(root, { command: `apply_patch '${body('d.md')}'` }))).toContain('d.md');
    expect(await hook(codex(root, { command: `cd src && apply_patch <<'EOF'\n${body('fine.py')}EOF\n` }))).toBeUndefined();
    expect(await hook(codex(root, { command: 'echo hello > README.md' }))).toBeUndefined();
  }, 60_000);

  it('judges a move to its both ends, and a 10,000-file patch in one answer naming five and counting the rest', async () => {
    expect(await hook(codex(root, { patch: patch('*** Update File: src/app.py', '*** Move to: docs/app.py', '@@', '-print(1)', '+print(2)') }))).toContain('docs/app.py');
    const files = Array.from({ length: 10_000 }, (_, i) => [`*** Add File: docs/f${i}.md`, '+x']).flat();
    const reason = await hook(codex(root, { patch: patch(...files) }));
    expect(reason).toContain('docs/f4.md');
    expect(reason).not.toContain('docs/f5.md');
    expect(reason).toContain('and 9995 more');
  }, 60_000);
});

describe('a damaged armed envelope never breaks the agent', () => {
  it('lets the call run, silent, when .cordon/config.json is not JSON, oversized, a link or a directory (check refuses that envelope)', async () => {
    const damaged = realpathSync(repo({ 'src/app.py': 'print(1)\n' }));
    await armWith(damaged, { allow: ['src/**'], live: true });
    const config = join(damaged, '.cordon/config.json');
    const text = readFileSync(config, 'utf8');
    expect(await hook(claude(join(damaged, 'README.md'), damaged))).toContain('path outside policy');
    const breakages: Array<() => void> = [
      () => writeFileSync(config, '{ "live": true, '),
      () => writeFileSync(config, text.replace('{', `{"pad":"${'x'.repeat(2 * 1024 * 1024)}",`)),
      () => {
        rmSync(config);
        writeFileSync(join(damaged, 'elsewhere.json'), text);
        symlinkSync(join(damaged, 'elsewhere.json'), config);
      },
      () => {
        rmSync(config);
        mkdirSync(config);
      },
    ];
    for (const breakIt of breakages) {
      rmSync(config, { recursive: true, force: true });
      writeFileSync(config, text);
      breakIt();
      expect(await hook(claude(join(damaged, 'README.md'), damaged))).toBeUndefined();
    }
  }, 60_000);
});
