import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, linkPluginRoots, makeSandbox, runCordon, type RunResult, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../test/support/git.js';

// Every host command, run where a path or name it prints holds control characters (a work tree
// at `r<ESC>[7mx<BEL>y`, a data directory like it, a plugin name like it): nothing it prints, on
// stdout or stderr, text or error, carries a raw control character; the path is shown escaped
// (`\u001b[7m`), never with its escape sequence deleted, and `--json` gives it as it is, in
// JSON's own escaping. A command added to the host must be added to the table below.

/** A name with a CSI sequence (reverse video) and a bell. */
const HOSTILE = 'h\u001b[7mx\u0007y';
/** How the terminal escaping shows {@link HOSTILE}. */
const SHOWN = 'h\\u001b[7mx\\u0007y';
/** Any control character but a line break or a tab (C0, DEL, C1). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  box = makeSandbox('cordon-hostile-paths-');
  repo = makeRepo(box.dir(`r${HOSTILE}`), { 'src/a.txt': 'a\n' }, box.env);
  const dataDir = box.dir(`d${HOSTILE}`);
  // A linked plugin whose directory's name holds the sequence too (`plugins` and `plugins inspect` show it).
  const pluginRoot = join(box.root, `p${HOSTILE}`);
  symlinkSync(join(REPO_ROOT, 'plugins/claude-code'), pluginRoot);
  linkPluginRoots(dataDir, [{ name: '@cordon/claude-code', root: pluginRoot }]);
  env = { ...box.env, CORDON_DATA_DIR: dataDir };
});
afterEach(() => box.cleanup());

/** One run of the table: the argv, and whether its output must show {@link HOSTILE} escaped. */
interface Case {
  readonly args: readonly string[];
  readonly shows: boolean;
  /** Run before this case (from the work tree). */
  readonly before?: () => Promise<unknown> | unknown;
}

/** The host's visible command ids (oclif.manifest.json). */
function hostCommandIds(): string[] {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/host/oclif.manifest.json'), 'utf8')) as { commands: Record<string, { hidden?: boolean }> };
  return Object.entries(manifest.commands)
    .filter(([, c]) => !c.hidden)
    .map(([id]) => id)
    .sort();
}

function cases(): Record<string, readonly Case[]> {
  const arm = async () => {
    const r = await runCordon(['arm', 'x', '--allow', 'src/**'], { env, cwd: repo });
    expect(r.exitCode, r.stderr).toBe(0);
  };
  return {
    info: [{ args: ['info'], shows: true }],
    // Nothing armed, then armed (the fast route's own output); check and reset then find it armed.
    status: [{ args: ['status'], shows: true }, { args: ['status', '--repo', repo], shows: false, before: arm }],
    arm: [{ args: ['arm', 'x', '--allow', 'src/**', '--repo', join(repo, 'missing')], shows: true }],
    check: [{ args: ['check'], shows: false }, { args: ['check', '--format', 'sarif', '--out', join(repo, 'no', 'x.sarif')], shows: true }],
    reset: [{ args: ['reset'], shows: true }, { args: ['reset'], shows: true }],
    resume: [{ args: ['resume'], shows: true }],
    run: [{ args: ['run', 'task', '--allow', 'src/**', '--agent', 'claude-code', '--agent-bin', join(repo, 'no-agent')], shows: true }],
    doctor: [{ args: ['doctor', '--project-dir', repo], shows: true }],
    'install-hooks': [{ args: ['install-hooks', '--agent', 'claude-code', '--scope', 'project', '--project-dir', repo, '--write'], shows: true }],
    'uninstall-hooks': [{ args: ['uninstall-hooks', '--agent', 'claude-code', '--scope', 'project', '--project-dir', repo, '--write'], shows: true }],
    'control:guard': [{ args: ['control', 'guard', '--agent', `a${HOSTILE}`], shows: true }],
    'control:probe': [{ args: ['control', 'probe'], shows: false }],
    'control:run': [{ args: ['control', 'run', '--', join(repo, 'no-program')], shows: true }],
    reduce: [{ args: ['reduce'], shows: true }],
    analyze: [{ args: ['analyze'], shows: true }],
    export: [{ args: ['export', '--otlp', 'http://127.0.0.1:9', '--db', join(repo, 'no.sqlite3')], shows: false }],
    top: [{ args: ['top', '--once'], shows: true }],
    hook: [{ args: ['hook', '--agent', 'claude-code'], shows: false }],
    plugins: [{ args: ['plugins'], shows: true }],
    'plugins:inspect': [{ args: ['plugins', 'inspect', `p${HOSTILE}`], shows: true }, { args: ['plugins', 'inspect', 'claude-code', '--verbose'], shows: true }],
    'plugins:install': [{ args: ['plugins', 'install', `p${HOSTILE}`], shows: false }],
    'plugins:link': [{ args: ['plugins', 'link', join(repo, 'no-plugin'), '--no-install'], shows: true }],
    'plugins:uninstall': [{ args: ['plugins', 'uninstall', `p${HOSTILE}`], shows: true }],
  };
}

/** `r`'s stdout and stderr have no raw control character, and show {@link HOSTILE} escaped when `shows`. */
function expectEscaped(label: string, r: RunResult, shows: boolean): void {
  for (const [name, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
    const bad = text.split('\n').find((line) => RAW_CONTROL.test(line));
    expect(bad, `${label}: a raw control character on ${name}`).toBeUndefined();
  }
  if (shows) expect(`${r.stdout}${r.stderr}`, label).toContain(SHOWN);
  // Deleted, not escaped: the name without its sequence would name a path that does not exist.
  expect(`${r.stdout}${r.stderr}`, label).not.toContain('hxy');
}

describe('every command prints hostile paths and names escaped', () => {
  it('the table covers every host command', () => {
    expect(Object.keys(cases()).sort()).toEqual(hostCommandIds());
  });

  it('text output and errors show the escape sequence escaped, never raw or deleted', async () => {
    for (const [id, runs] of Object.entries(cases())) {
      for (const { args, shows, before } of runs) {
        await before?.();
        const r = await runCordon(args, { env, cwd: repo });
        expectEscaped(`${id}: cordon ${args.join(' ')}`, r, shows);
      }
    }
  }, 300_000);

  it('--json gives the path exactly, in JSON escaping, with the message escaped as text', async () => {
    const nothing = await runCordon(['status', '--json'], { env, cwd: repo });
    expect(nothing.exitCode).toBe(2);
    const error = (JSON.parse(nothing.stdout) as { error: { message: string; details: { root: string } } }).error;
    expect(error.details.root).toBe(repo);
    expect(error.message).toContain(`nothing is armed in ${repo.replace(HOSTILE, SHOWN)}`);
    expect(nothing.stdout).toContain('\\u001b[7m');
    expect((await runCordon(['arm', 'x', '--allow', 'src/**'], { env, cwd: repo })).exitCode).toBe(0);
    writeFiles(repo, { 'src/a.txt': 'b\n' });
    const armed = await runCordon(['status', '--json'], { env, cwd: repo });
    expect(armed.exitCode, armed.stderr).toBe(0);
    expect(armed.stdout).not.toMatch(RAW_CONTROL);
    // The linked plugin's directory as it is, for scripts.
    const inspected = await runCordon(['plugins', 'inspect', 'claude-code', '--json'], { env, cwd: repo });
    expect(inspected.exitCode, inspected.stderr).toBe(0);
    expect(JSON.parse(inspected.stdout)[0]).toMatchObject({ name: '@cordon/claude-code', root: join(box.root, `p${HOSTILE}`) });
  }, 120_000);
});
