import { mkdirSync, readFileSync, realpathSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { armWith, commitAll, repo, tempDir } from '../envelope/support.js';
import { AGENT_PLUGINS, FIXTURES, hookViaSocket, PATIENT_HOOK_ENV } from './support.js';

// Symbolic links under the live envelope, end to end: for each operation (create/update through
// a path, delete, either end of a move) on a path that is, or runs through, a link, the built
// `cordon hook` judges a real-shaped Codex apply_patch or Claude Code Write payload; then the
// operation is done on the real repository as the tool does it, and the built `cordon check`
// judges the resulting tree. The two must agree: a call the hook lets run passes `check`, a call
// it refuses fails `check` (for a tool that may do it two ways, at least one way fails).

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  sandbox = makeSandbox('cordon-live-links-');
  linkPluginRoots(sandbox.dataDir, AGENT_PLUGINS);
  env = { ...sandbox.env, ...PATIENT_HOOK_ENV };
});
afterAll(() => sandbox.cleanup());

/** A real repository armed live with --allow 'src/**' --deny 'src/secret/**', with committed links of every kind. */
async function linkedRepo(): Promise<{ root: string; outside: string }> {
  const root = realpathSync(repo({ 'src/app.py': 'print(1)\n', 'docs/readme.md': '# d\n', 'src/secret/key.pem': 'k\n' }));
  const outside = realpathSync(tempDir('outside'));
  writeFileSync(join(outside, 'x.txt'), 'outside\n');
  const links: Record<string, string> = {
    'src/to-readme': '../docs/readme.md', // allowed place, leads to a refused file
    'docs/to-app': '../src/app.py', // refused place, leads to an allowed file
    'src/to-app': 'app.py', // allowed place, allowed file
    'src/out': join(outside, 'x.txt'), // leads out of the work tree
    'src/out-dir': outside, // a directory out of the work tree
    'src/dangling': '../docs/missing.md', // dangling, would create a refused file
    'src/dangling-out': join(outside, 'missing.txt'), // dangling, out of the work tree
    'src/to-docs': '../docs', // a link to a directory
    'src/chain': 'to-readme', // a chain: src/chain → src/to-readme → docs/readme.md
    'src/to-secret': 'secret/key.pem', // leads to a denied file
    'src/secret/to-app': '../app.py', // a denied link leading to an allowed file
    'src/loop-a': 'loop-b', // links that loop
    'src/loop-b': 'loop-a',
    'src/to-state': '../.cordon/config.json', // leads into the armed envelope's state
    'src/to-git': '../.git/config', // leads into git's own directory
  };
  for (const [path, target] of Object.entries(links)) symlinkSync(target, join(root, path));
  commitAll(root, 'links');
  await armWith(root, { allow: ['src/**'], deny: ['src/secret/**'], live: true });
  return { root, outside };
}

function fixture(name: string): Record<string, any> {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
}

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');

/** How a tool changes the tree: `through` writes in place (links followed), `remove` unlinks, `replace` renames a new file over the path. */
type Step = { readonly through: string } | { readonly remove: string } | { readonly replace: string };

interface Case {
  readonly name: string;
  /** The call as the agent sends it (relative paths against the repository root). */
  readonly call: { readonly codex: string } | { readonly claude: string };
  /** What the tool does to the tree; several lists when it may do it several ways. */
  readonly ways: ReadonlyArray<readonly Step[]>;
  /** The live verdict: `allow`, or the text the refusal holds. */
  readonly live: 'allow' | string;
}

const del = (path: string) => patch(`*** Delete File: ${path}`);
const update = (path: string) => patch(`*** Update File: ${path}`, '@@', '-x', '+y');
const move = (from: string, to: string) => patch(`*** Update File: ${from}`, `*** Move to: ${to}`, '@@', '-x', '+y');

const CASES: readonly Case[] = [
  // Deleting a link removes the link itself: its own path is judged, not where it leads.
  { name: 'delete an allowed link to a refused file', call: { codex: del('src/to-readme') }, ways: [[{ remove: 'src/to-readme' }]], live: 'allow' },
  { name: 'delete a refused link to an allowed file', call: { codex: del('docs/to-app') }, ways: [[{ remove: 'docs/to-app' }]], live: 'path outside policy: docs/to-app' },
  { name: 'delete a link leading out of the work tree', call: { codex: del('src/out') }, ways: [[{ remove: 'src/out' }]], live: 'allow' },
  { name: 'delete a dangling link leading out of the work tree', call: { codex: del('src/dangling-out') }, ways: [[{ remove: 'src/dangling-out' }]], live: 'allow' },
  { name: 'delete a dangling link inside', call: { codex: del('src/dangling') }, ways: [[{ remove: 'src/dangling' }]], live: 'allow' },
  { name: 'delete a link to a directory', call: { codex: del('src/to-docs') }, ways: [[{ remove: 'src/to-docs' }]], live: 'allow' },
  { name: 'delete the first link of a chain', call: { codex: del('src/chain') }, ways: [[{ remove: 'src/chain' }]], live: 'allow' },
  { name: 'delete a link to a denied file', call: { codex: del('src/to-secret') }, ways: [[{ remove: 'src/to-secret' }]], live: 'allow' },
  { name: 'delete a denied link to an allowed file', call: { codex: del('src/secret/to-app') }, ways: [[{ remove: 'src/secret/to-app' }]], live: 'matches the deny glob src/secret/**' },
  { name: 'delete a looping link', call: { codex: del('src/loop-a') }, ways: [[{ remove: 'src/loop-a' }]], live: 'allow' },
  { name: 'delete a link into .cordon/', call: { codex: del('src/to-state') }, ways: [[{ remove: 'src/to-state' }]], live: 'allow' },
  { name: 'delete a link into .git/', call: { codex: del('src/to-git') }, ways: [[{ remove: 'src/to-git' }]], live: 'allow' },
  // A link among the parent directories is followed: the file removed is where it leads.
  { name: 'delete through a directory link', call: { codex: del('src/to-docs/readme.md') }, ways: [[{ remove: 'src/to-docs/readme.md' }]], live: 'path outside policy: docs/readme.md' },
  // Moving a link: Codex writes the destination in place and removes the source link itself.
  { name: 'move an allowed link to a refused file', call: { codex: move('src/to-readme', 'src/readme.md') }, ways: [[{ through: 'src/readme.md' }, { remove: 'src/to-readme' }]], live: 'allow' },
  { name: 'move a refused link to an allowed file', call: { codex: move('docs/to-app', 'src/moved.py') }, ways: [[{ through: 'src/moved.py' }, { remove: 'docs/to-app' }]], live: 'path outside policy: docs/to-app' },
  { name: 'move a file onto a link to a refused file', call: { codex: move('src/app.py', 'src/to-readme') }, ways: [[{ through: 'src/to-readme' }, { remove: 'src/app.py' }]], live: 'path outside policy: docs/readme.md' },
  { name: 'move a file into a directory link', call: { codex: move('src/app.py', 'src/to-docs/app.py') }, ways: [[{ through: 'src/to-docs/app.py' }, { remove: 'src/app.py' }]], live: 'path outside policy: docs/app.py' },
  // Writing through a link changes where it leads.
  { name: 'update through an allowed link to a refused file', call: { codex: update('src/to-readme') }, ways: [[{ through: 'src/to-readme' }]], live: 'path outside policy: docs/readme.md' },
  { name: 'update through a refused link to an allowed file', call: { codex: update('docs/to-app') }, ways: [[{ through: 'docs/to-app' }]], live: 'allow' },
  { name: 'add through a dangling link', call: { codex: patch('*** Add File: src/dangling', '+x') }, ways: [[{ through: 'src/dangling' }]], live: 'path outside policy: docs/missing.md' },
  { name: 'update through a chain of links', call: { codex: update('src/chain') }, ways: [[{ through: 'src/chain' }]], live: 'path outside policy: docs/readme.md' },
  { name: 'update through a link to a denied file', call: { codex: update('src/to-secret') }, ways: [[{ through: 'src/to-secret' }]], live: 'matches the deny glob src/secret/**' },
  // Claude Code may write through a link or rename a new file over it (anthropics/claude-code#28376): both are judged.
  { name: 'Claude Write to a refused link to an allowed file', call: { claude: 'docs/to-app' }, ways: [[{ through: 'docs/to-app' }], [{ replace: 'docs/to-app' }]], live: 'path outside policy: docs/to-app' },
  { name: 'Claude Write to an allowed link to a refused file', call: { claude: 'src/to-readme' }, ways: [[{ through: 'src/to-readme' }], [{ replace: 'src/to-readme' }]], live: 'path outside policy: docs/readme.md' },
  { name: 'Claude Write to an allowed link to an allowed file', call: { claude: 'src/to-app' }, ways: [[{ through: 'src/to-app' }], [{ replace: 'src/to-app' }]], live: 'allow' },
  { name: 'Claude Write to a denied link to an allowed file', call: { claude: 'src/secret/to-app' }, ways: [[{ through: 'src/secret/to-app' }], [{ replace: 'src/secret/to-app' }]], live: 'matches the deny glob src/secret/**' },
];

/** Runs the built hook on the call: the refusal's reason, or undefined when it let the call run. It must exit 0 and print nothing else. */
async function hook(root: string, call: Case['call']): Promise<string | undefined> {
  const payload =
    'codex' in call
      ? { ...fixture('codex.PreToolUse.apply_patch.json'), cwd: root, tool_input: { command: call.codex } }
      : { ...fixture('claude-code.PreToolUse.Write.json'), cwd: root, tool_name: 'Write', tool_input: { file_path: join(root, call.claude), content: 'y\n' } };
  const result = await hookViaSocket(['--agent', 'codex' in call ? 'codex' : 'claude-code'], JSON.stringify(payload), false, env);
  expect(result.exitCode, result.stderr).toBe(0);
  expect(result.stderr).toBe('');
  if (result.stdout === '') return undefined;
  const out = JSON.parse(result.stdout);
  return out.hookSpecificOutput?.permissionDecisionReason ?? out.reason;
}

/** Does `steps` to the tree as the tool would. */
function perform(root: string, steps: readonly Step[]): void {
  for (const step of steps) {
    if ('through' in step) {
      mkdirSync(dirname(join(root, step.through)), { recursive: true });
      writeFileSync(join(root, step.through), 'y\n'); // open(2) follows every link, a dangling one creates its target
    } else if ('remove' in step) {
      unlinkSync(join(root, step.remove)); // unlink(2) removes a final link itself
    } else {
      const temp = join(dirname(join(root, step.replace)), '.tmp-write');
      writeFileSync(temp, 'y\n');
      renameSync(temp, join(root, step.replace)); // rename(2) replaces a final link by the file
    }
  }
}

/** Whether the built `cordon check` accepts the tree (exit 0) or rejects it (exit 3); any other exit fails the test. */
async function checkPasses(root: string): Promise<boolean> {
  const result = await runCordon(['check'], { cwd: root, env });
  expect([0, 3], `${result.stdout}\n${result.stderr}`).toContain(result.exitCode);
  return result.exitCode === 0;
}

describe('the live envelope judges a symbolic link as check judges the tree the call leaves', () => {
  it.each(CASES)('$name', async ({ call, ways, live }) => {
    const verdicts: boolean[] = [];
    for (const steps of ways) {
      const { root } = await linkedRepo();
      const reason = await hook(root, call);
      if (live === 'allow') expect(reason).toBeUndefined();
      else expect(reason).toContain(live);
      perform(root, steps);
      verdicts.push(await checkPasses(root));
    }
    // Allowed live: every way the tool may do it passes check. Refused: at least one fails it.
    if (live === 'allow') expect(verdicts.every(Boolean)).toBe(true);
    else expect(verdicts.some((passed) => !passed)).toBe(true);
  }, 120_000);

  it('judges a removed link by its own path also for an agent working outside the repository (the envelope found where it lands)', async () => {
    const { root, outside } = await linkedRepo();
    const codex = (command: string) => ({ ...fixture('codex.PreToolUse.apply_patch.json'), cwd: outside, tool_input: { command } });
    const run = async (command: string) => (await hookViaSocket(['--agent', 'codex'], JSON.stringify(codex(command)), false, env)).stdout;
    expect(await run(del(join(root, 'docs/to-app')))).toContain('path outside policy: docs/to-app');
    expect(await run(del(join(root, 'src/to-readme')))).toBe('');
    expect(await run(update(join(root, 'src/to-readme')))).toContain('path outside policy: docs/readme.md');
  }, 120_000);

  it('judges a Cursor Delete of a link by the link, a Cursor Write to one both ways (payloads as the Cursor hooks docs give them)', async () => {
    const { root } = await linkedRepo();
    const cursor = (tool: string, path: string) => ({
      conversation_id: '4f1c2a7e-0d3b-4c1e-9a55-7c2b1e0f9d11',
      generation_id: 'gen-1',
      hook_event_name: 'preToolUse',
      tool_name: tool,
      tool_input: { file_path: join(root, path) },
      tool_use_id: `tool-${tool}-${path}`,
      cwd: root,
      workspace_roots: [root],
    });
    const run = async (tool: string, path: string) => {
      const result = await hookViaSocket(['--agent', 'cursor'], JSON.stringify(cursor(tool, path)), false, env);
      expect(result.exitCode, result.stderr).toBe(0);
      return result.stdout;
    };
    expect(await run('Delete', 'src/to-readme')).toBe('');
    expect(await run('Delete', 'docs/to-app')).toContain('path outside policy: docs/to-app');
    expect(await run('Write', 'src/to-readme')).toContain('path outside policy: docs/readme.md');
    expect(await run('Write', 'docs/to-app')).toContain('path outside policy: docs/to-app');
    expect(await run('Write', 'src/to-app')).toBe('');
  }, 120_000);

  it('refuses writing through a link into .cordon/ or .git/, and looping links', async () => {
    const { root } = await linkedRepo();
    expect(await hook(root, { codex: update('src/to-state') })).toContain('.cordon/ holds the armed envelope');
    expect(await hook(root, { codex: update('src/to-git') })).toContain(".git/ is git's own directory");
    expect(await hook(root, { codex: update('src/loop-a') })).toContain('its symbolic links loop');
    expect(await hook(root, { claude: 'src/loop-a' })).toContain('its symbolic links loop');
  }, 120_000);

  // The live envelope refuses a change outside the work tree, which check cannot see (documented).
  it('refuses a write or delete a link carries out of the work tree, where check sees nothing', async () => {
    const { root, outside } = await linkedRepo();
    expect(await hook(root, { codex: update('src/out') })).toContain('a symbolic link on its way leads out of the repository');
    expect(await hook(root, { codex: del('src/out-dir/x.txt') })).toContain('a symbolic link on its way leads out of the repository');
    expect(await hook(root, { codex: patch('*** Add File: src/dangling-out', '+x') })).toContain(join(outside, 'missing.txt'));
  }, 120_000);

  // A trailing slash makes the kernel follow a final link: `unlink("src/to-docs/")` fails, while a
  // recursive delete of `src/to-docs/` (as `rm -r` does it) empties docs/. Judged where it leads.
  it('judges a removed link named with a trailing slash where it leads', async () => {
    const { root } = await linkedRepo();
    expect(await hook(root, { codex: del('src/to-docs/') })).toContain('path outside policy: docs');
    expect(await hook(root, { codex: del('src/to-app/') })).toBeUndefined();
  }, 120_000);
});
