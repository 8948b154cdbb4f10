import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyBranchesSaid } from '../../src/commands/plugins/inspect.js';
import { REPO_ROOT, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';

// `cordon plugins inspect`: oclif's tree, with an empty section said as such and a linked
// plugin's dependencies found where Node finds them (hoisted to the checkout's root). Built CLI.

let box: Sandbox;
beforeEach(() => (box = makeSandbox('cordon-plugin-inspect-')));
afterEach(() => box.cleanup());

const installed = (name: string): string => (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

describe('cordon plugins inspect', () => {
  it('says "none" of a section with nothing in it, instead of ending on a bare `└─ dependencies`', async () => {
    linkPlugins(box.dataDir, ['claude-code']);
    const r = await runCordon(['plugins', 'inspect', 'claude-code'], { env: box.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`└─ @cordon/claude-code\n   ├─ version 0.1.0\n   ├─ location ${join(REPO_ROOT, 'plugins', 'claude-code')}\n   ├─ commands none\n   └─ dependencies none\n`);
  });

  it("lists a linked plugin's dependencies, installed at the checkout's root", async () => {
    linkPlugins(box.dataDir, ['codex']);
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'plugins', 'codex', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const r = await runCordon(['plugins', 'inspect', 'codex'], { env: box.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const tail = Object.entries(pkg.dependencies).map(([name, range], i, all) => `      ${i === all.length - 1 ? '└' : '├'}─ ${name} ${range} => ${installed(name)}`);
    expect(r.stdout).toContain(`   └─ dependencies\n${tail.join('\n')}\n`);
    expect(r.stdout).toContain('   │  └─ pcodx:uncompact\n');
    const json = await runCordon(['plugins', 'inspect', 'codex', '--json'], { env: box.env });
    expect(JSON.parse(json.stdout)[0].deps).toEqual(Object.fromEntries(Object.entries(pkg.dependencies).map(([name, from]) => [name, { from, version: installed(name) }])));
  });

  it("inspects a linked plugin whose name holds an escape, a bidi override, a C1 control or a line separator, and --json escapes them", async () => {
    // The inspection escaped the name on the plugin while oclif drew it, and oclif looked the plugin
    // up again by the name given: `no installed plugin is called …` of a plugin `cordon plugins`
    // listed. And `plugins --json` and `plugins inspect --json` printed the name through
    // JSON.stringify, so U+202E, U+009B and U+2028 reached the terminal raw.
    const names = ['evil\u001b[31mred\u202e', 'c1\u009b2J', 'ls\u2028sep'];
    const shownNames = ['evil\\u001b[31mred\\u202e', 'c1\\u009b2J', 'ls\\u2028sep'];
    const raw = /[\u001b\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
    for (const [i, name] of names.entries()) {
      const dir = box.dir(`hostile-${i}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: `1.0.0\u001b]0;t\u0007`, description: 'd\u202e', oclif: { hooks: {} } }));
      const linked = await runCordon(['plugins', 'link', dir, '--no-install'], { env: box.env });
      expect(linked.exitCode, linked.stderr).toBe(0);
      const text = await runCordon(['plugins', 'inspect', name], { env: box.env });
      expect({ name, exitCode: text.exitCode, stderr: text.stderr }).toEqual({ name, exitCode: 0, stderr: '' });
      expect(text.stdout).toBe(`└─ ${shownNames[i]}\n   ├─ version 1.0.0\\u001b]0;t\\u0007\n   ├─ location ${dir}\n   ├─ commands none\n   └─ dependencies none\n`);
      const json = await runCordon(['plugins', 'inspect', name, '--json'], { env: box.env });
      expect(json.exitCode, json.stderr).toBe(0);
      expect(json.stdout).not.toMatch(raw);
      expect(JSON.parse(json.stdout)[0]).toMatchObject({ name, root: dir });
    }
    const list = await runCordon(['plugins', '--json'], { env: box.env });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).not.toMatch(raw);
    expect((JSON.parse(list.stdout) as Array<{ name: string }>).map((p) => p.name).filter((n) => names.includes(n)).sort()).toEqual([...names].sort());
  });

  it('inspect . names the package.json it reads when it cannot: missing, not JSON, no object, no name', async () => {
    // oclif read ./package.json with JSON.parse: `SyntaxError: Unexpected end of JSON input`,
    // `ENOENT: … open 'package.json'` (Code: ENOENT) and `TypeError: Cannot read properties of undefined`.
    const cases: Array<[string, string | undefined, string]> = [
      ['none', undefined, 'does not exist'],
      ['truncated', '{"name":', 'is not valid JSON: value expected at line 1, column 9'],
      ['list', '[]', 'does not hold a JSON object'],
      ['nameless', '{"version":"1.0.0"}', 'has no package name (a string `name`)'],
    ];
    for (const [name, text, why] of cases) {
      const dir = box.dir(`here-${name}`);
      mkdirSync(dir, { recursive: true });
      if (text !== undefined) writeFileSync(join(dir, 'package.json'), text);
      const r = await runCordon(['plugins', 'inspect', '.'], { env: box.env, cwd: dir });
      expect({ name, exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({ name, exitCode: 2, stdout: '', stderr: `    Error: \`plugins inspect .\` inspects the plugin whose package.json is here, but ${join(dir, 'package.json')} ${why}\n    Code: CORDON_BAD_INPUT\n` });
    }
    // A plugin's own checkout: `.` is its package.
    linkPlugins(box.dataDir, ['claude-code']);
    const here = await runCordon(['plugins', 'inspect', '.'], { env: box.env, cwd: join(REPO_ROOT, 'plugins', 'claude-code') });
    expect(here.exitCode, here.stderr).toBe(0);
    expect(here.stdout).toContain('└─ @cordon/claude-code\n');
  });

  it('emptyBranchesSaid: only a section line with nothing deeper after it', () => {
    const tree = ['└─ p', '   ├─ commands', '   │  └─ a', '   ├─ version 1', '   └─ dependencies'].join('\n');
    expect(emptyBranchesSaid(tree)).toBe(['└─ p', '   ├─ commands', '   │  └─ a', '   ├─ version 1', '   └─ dependencies none'].join('\n'));
    expect(emptyBranchesSaid('commands')).toBe('commands');
    // Styled text (a terminal's colours) is read without its escapes.
    expect(emptyBranchesSaid('└─ p\n   ├─ \u001b[1mcommands\u001b[22m\n   └─ x')).toBe('└─ p\n   ├─ \u001b[1mcommands\u001b[22m none\n   └─ x');
    expect(emptyBranchesSaid('└─ p\n   ├─ \u001b[1mcommands\u001b[22m\n   │  └─ a')).toBe('└─ p\n   ├─ \u001b[1mcommands\u001b[22m\n   │  └─ a');
  });
});
