import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { directoryProblem } from '../../src/io/directory.js';

// Every flag that names a directory which must exist (`--repo`, `--project-dir`) goes through
// one check (io/directory.ts, cli/directory-flag.ts): a missing path or a file is refused before
// the command does anything, naming the flag and the value, `CORDON_BAD_INPUT` and exit 2.

let box: Sandbox;
let file: string;
beforeEach(() => {
  box = makeSandbox('cordon-dir-flags-');
  file = join(box.root, 'a-file');
  writeFileSync(file, 'x\n');
});
afterEach(() => box.cleanup());

/** Every command of the host's manifest with a flag that names an existing directory, and that flag. */
function directoryFlags(): Array<{ command: string[]; flag: string }> {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/host/oclif.manifest.json'), 'utf8')) as { commands: Record<string, { flags: Record<string, unknown> }> };
  return Object.entries(manifest.commands).flatMap(([id, c]) => ['repo', 'project-dir'].filter((flag) => flag in c.flags).map((flag) => ({ command: id.split(':'), flag: `--${flag}` })));
}

describe('directoryProblem', () => {
  it('says what keeps a path from being a directory, following links', () => {
    const dir = box.dir('d');
    symlinkSync(dir, join(box.root, 'link'));
    expect(directoryProblem(dir)).toBeUndefined();
    expect(directoryProblem(join(box.root, 'link'))).toBeUndefined();
    expect(directoryProblem(join(box.root, 'missing'))).toBe('no such directory');
    expect(directoryProblem(file)).toBe('not a directory');
    expect(directoryProblem(join(file, 'below'))).toBe('not a directory');
  });
});

describe('flags that name a directory', () => {
  it('every --repo and --project-dir refuses a file and a missing path, naming the flag and the value', async () => {
    const flags = directoryFlags();
    expect(flags.map((f) => `${f.command.join(' ')} ${f.flag}`)).toEqual(expect.arrayContaining(['doctor --project-dir', 'install-hooks --project-dir', 'uninstall-hooks --project-dir', 'check --repo', 'arm --repo', 'status --repo']));
    for (const { command, flag } of flags) {
      for (const [value, why] of [
        [file, 'not a directory'],
        [join(box.root, 'missing', 'deeper'), 'no such directory'],
      ] as const) {
        const r = await runCordon([...command, flag, value], { env: box.env, cwd: box.root });
        const what = `${command.join(' ')} ${flag} ${value}`;
        expect(r.exitCode, what).toBe(2);
        expect(r.stderr, what).toContain(`Error: ${flag} ${JSON.stringify(value)}: ${why}; see \`cordon ${command.join(' ')} --help\``);
        expect(r.stderr, what).toContain('Code: CORDON_BAD_INPUT');
      }
    }
  });

  it('--json gives the JSON error document', async () => {
    const r = await runCordon(['doctor', '--project-dir', file, '--json'], { env: box.env });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'CORDON_BAD_INPUT', details: { flag: '--project-dir', path: file }, message: `--project-dir ${JSON.stringify(file)}: not a directory; see \`cordon doctor --help\`` } });
  });

  it('install-hooks --scope project --write into a missing directory creates nothing', async () => {
    linkPlugins(box.dataDir, ['claude-code']);
    const missing = join(box.root, 'x', 'nope', 'deeper');
    const r = await runCordon(['install-hooks', '--agent', 'claude-code', '--scope', 'project', '--project-dir', missing, '--write'], { env: box.env });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--project-dir ${JSON.stringify(missing)}: no such directory`);
    expect(existsSync(join(box.root, 'x'))).toBe(false);
  });

  it('an existing project directory is still used (relative too)', async () => {
    linkPlugins(box.dataDir, ['claude-code']);
    mkdirSync(join(box.root, 'project'));
    const r = await runCordon(['install-hooks', '--agent', 'claude-code', '--scope', 'project', '--project-dir', 'project', '--write'], { env: box.env, cwd: box.root });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(join(box.root, 'project', '.claude', 'settings.json'))).toBe(true);
  });

  it('the fast route of check refuses a --repo that is a file the same way', async () => {
    const r = await runCordon(['check', '--repo', file, '--json'], { env: box.env });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT', message: expect.stringContaining(`--repo ${JSON.stringify(file)}: not a directory`) });
  });
});
