import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { cordonJson, HOOK_AGENTS as AGENTS, hooksSandbox, writeFiles } from './support.js';
import { trustHash } from '../../../../plugins/codex/src/dialect/trust.js';
import { UNCONFIRMED } from '../../../../plugins/codex/src/dialect/install.js';

// install-hooks / uninstall-hooks against the situations of issues 11 (items 1, 2, 5, 7) and 13
// (items 5, 13, 17), through the built CLI on real files: symlinked configs and homes,
// duplicates, byte-exact YAML, planted temp-file links, pre-existing configs, failed writes.

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let home: string;
let project: string;

const COMMAND = (agent: string) => `${process.execPath} ${CORDON_BIN} hook --agent ${agent}`;

const write = (files: Record<string, string>, root = home): void => writeFiles(root, files);
const read = (path: string, root = home): string => readFileSync(join(root, path), 'utf8');
const cordon = (args: string[], extraEnv: NodeJS.ProcessEnv = {}, cwd = project) => cordonJson(args, { ...env, ...extraEnv }, cwd);

beforeEach(() => {
  ({ sandbox, home, project, env } = hooksSandbox('cordon-hooks-faults-'));
});
afterEach(() => sandbox.cleanup());

describe('symlinked config files stay links; their targets are edited', () => {
  const configs: Record<string, { agent: string; text: string }> = {
    '.claude/settings.json': { agent: 'claude-code', text: '{\n  "model": "opus"\n}\n' },
    '.gemini/settings.json': { agent: 'gemini', text: '{\n  // mine\n  "ui": { "theme": "GitHub" }\n}\n' },
    '.codex/config.toml': { agent: 'codex', text: '# my codex\nmodel = "gpt-5.5"\n' },
    '.hermes/config.yaml': { agent: 'hermes', text: '# mine\nmodel:\n  default: x   # pinned\n' },
  };

  for (const kind of ['absolute', 'relative', 'chained'] as const) {
    it(`${kind} links: install and uninstall write through them, the links stay, uninstall gives the target its bytes back`, async () => {
      const dots = sandbox.dir('dotfiles');
      for (const [path, { text }] of Object.entries(configs)) {
        const target = join(dots, path.replace(/\//g, '_'));
        writeFileSync(target, text);
        const link = join(home, path);
        mkdirSync(dirname(link), { recursive: true });
        if (kind === 'absolute') symlinkSync(target, link);
        else if (kind === 'relative') symlinkSync(relative(dirname(link), target), link);
        else {
          const hop = join(dots, `hop-${path.replace(/\//g, '_')}`);
          symlinkSync(target, hop);
          symlinkSync(relative(dirname(link), hop), link);
        }
      }
      const agents = Object.values(configs).flatMap((c) => ['--agent', c.agent]);
      const install = await cordon(['install-hooks', ...agents, '--write']);
      expect(install.exitCode, install.stderr).toBe(0);
      for (const [path, { agent }] of Object.entries(configs)) {
        expect(lstatSync(join(home, path)).isSymbolicLink(), path).toBe(true);
        const target = join(dots, path.replace(/\//g, '_'));
        const text = readFileSync(target, 'utf8');
        if (path.endsWith('.toml')) expect(Object.keys((parseToml(text) as any).hooks.state)).toHaveLength(4);
        else expect(text, path).toContain(`hook --agent ${agent}`);
        // No temp file left beside the link or the target.
        for (const dir of [dirname(join(home, path)), dots]) expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
      }
      const uninstall = await cordon(['uninstall-hooks', ...agents, '--write']);
      expect(uninstall.exitCode, uninstall.stderr).toBe(0);
      for (const [path, { text }] of Object.entries(configs)) {
        expect(lstatSync(join(home, path)).isSymbolicLink(), path).toBe(true);
        expect(readFileSync(join(dots, path.replace(/\//g, '_')), 'utf8'), path).toBe(text);
      }
    });
  }

  // Found by a hostile-input probe: a dangling link made install create its target, and every
  // missing directory above it (0755), wherever it pointed; uninstall left `{}` and the directories.
  it('a dangling link (its directory missing, or only its file; absolute, relative, chained) is refused with its target named, exit 2, nothing created', async () => {
    const dots = sandbox.dir('dotfiles');
    const missingDir = join(sandbox.dir('elsewhere'), 'missing/dir');
    const cases: Array<[string, () => void, string]> = [
      ['absolute, directory missing', () => symlinkSync(join(missingDir, 'x.json'), join(home, '.claude/settings.json')), join(missingDir, 'x.json')],
      ['relative, file missing', () => symlinkSync(relative(join(home, '.claude'), join(dots, 'claude.json')), join(home, '.claude/settings.json')), join(dots, 'claude.json')],
      ['chained', () => (symlinkSync(join(missingDir, 'y.json'), join(dots, 'hop')), symlinkSync(join(dots, 'hop'), join(home, '.claude/settings.json'))), join(missingDir, 'y.json')],
      ['into /proc', () => symlinkSync('/proc/self/cordon-cannot-create-this/settings.json', join(home, '.claude/settings.json')), '/proc/self/cordon-cannot-create-this/settings.json'],
    ];
    for (const [name, makeLink, target] of cases) {
      rmSync(join(home, '.claude'), { recursive: true, force: true });
      rmSync(join(dots, 'hop'), { force: true });
      mkdirSync(join(home, '.claude'), { recursive: true });
      makeLink();
      for (const command of ['install-hooks', 'uninstall-hooks']) {
        const r = await cordon([command, '--agent', 'claude-code', '--write']);
        expect(r.exitCode, `${name}: ${command}`).toBe(2);
        expect(r.json.error.code).toBe('CORDON_CONFIG_EDIT');
        expect(r.json.error.message).toContain(`${join(home, '.claude/settings.json')}: is a symbolic link to ${target}`);
        expect(r.json.error.message).toContain('which does not exist');
        expect(r.json.error.message).toContain('nothing was written');
        expect(r.json.error.details.target).toBe(target);
      }
      expect(existsSync(target), name).toBe(false);
      expect(existsSync(dirname(missingDir)), name).toBe(false);
      expect(lstatSync(join(home, '.claude/settings.json')).isSymbolicLink()).toBe(true);
      expect(readdirSync(join(home, '.claude'))).toEqual(['settings.json']);
    }
    expect(existsSync(join(sandbox.dataDir, 'install-hooks.json'))).toBe(false);
    const human = await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env, cwd: project });
    expect(human.exitCode).toBe(2);
    expect(human.stderr).toContain('Code: CORDON_CONFIG_EDIT');
  });

  it('a link to itself or a link loop is refused as such (not as "a link cordon does not follow"), exit 2, nothing written', async () => {
    mkdirSync(join(home, '.claude'), { recursive: true });
    mkdirSync(join(home, '.gemini'), { recursive: true });
    symlinkSync('settings.json', join(home, '.claude/settings.json'));
    symlinkSync(join(home, '.gemini/b.json'), join(home, '.gemini/settings.json'));
    symlinkSync('settings.json', join(home, '.gemini/b.json'));
    const self = await cordon(['install-hooks', '--agent', 'claude-code', '--write']);
    expect(self.exitCode).toBe(2);
    expect(self.json.error.code).toBe('CORDON_CONFIG_EDIT');
    expect(self.json.error.message).toBe(`${join(home, '.claude/settings.json')}: is a symbolic link to itself; refusing to edit it, nothing was written`);
    const loop = await cordon(['install-hooks', '--agent', 'gemini', '--write']);
    expect(loop.exitCode).toBe(2);
    expect(loop.json.error.code).toBe('CORDON_CONFIG_EDIT');
    const [a, b] = [join(home, '.gemini/settings.json'), join(home, '.gemini/b.json')];
    expect(loop.json.error.message).toBe(`${a}: is a symbolic link loop (${a} -> ${b} -> ${a}); refusing to edit it, nothing was written`);
    expect(readdirSync(join(home, '.claude'))).toEqual(['settings.json']);
    expect(readdirSync(join(home, '.gemini')).sort()).toEqual(['b.json', 'settings.json']);
  });

  it('a config that is a FIFO or a link to /dev/zero (a hostile project) is refused at once, exit 2, nothing written', async () => {
    mkdirSync(join(project, '.claude'), { recursive: true });
    execFileSync('mkfifo', [join(project, '.claude/settings.json')]);
    mkdirSync(join(project, '.gemini'), { recursive: true });
    symlinkSync('/dev/zero', join(project, '.gemini/settings.json'));
    for (const agent of ['claude-code', 'gemini']) {
      const r = await cordon(['install-hooks', '--agent', agent, '--scope', 'project', '--write']);
      expect(r.exitCode, agent).toBe(2);
      expect(r.json.error.code).toBe('CORDON_CONFIG_EDIT');
      expect(r.json.error.message).toContain('is not a regular file');
    }
    expect(lstatSync(join(project, '.claude/settings.json')).isFIFO()).toBe(true);
    expect(readlinkSync(join(project, '.gemini/settings.json'))).toBe('/dev/zero');
  });
});

// Found by a hostile-input probe: with a key given twice, the agent (JSON.parse) reads the last
// copy while the edit went into the first: exit 0, "installed", and no cordon hook in effect (the
// live envelope and every decision depend on it); a duplicated top-level "hooks" crashed the
// plugin with a TypeError. An event holding something other than a list was replaced by
// cordon's list without a word, dropping what the user wrote.
describe('a config the agent would read otherwise, or an edit that would drop the user\'s value: refused, nothing written', () => {
  const cases: Array<[string, string, string, string]> = [
    ['claude-code', '.claude/settings.json', '{"hooks": {"PreToolUse": [], "PreToolUse": [{"matcher": "X", "hooks": [{"type": "command", "command": "mine"}]}]}}\n', '"PreToolUse" is given twice, at line 1, column 12 and again at line 1, column 30'],
    ['claude-code', '.claude/settings.json', '{"hooks": {"PreToolUse": []},\n "hooks": {"Stop": []}}\n', '"hooks" is given twice, at line 1, column 2 and again at line 2, column 2'],
    ['gemini', '.gemini/settings.json', '{\n  // mine\n  "hooks": {},\n  "hooks": {"BeforeTool": []}\n}\n', '"hooks" is given twice, at line 3, column 3 and again at line 4, column 3'],
    ['cursor', '.cursor/hooks.json', '{"version": 1, "hooks": {"preToolUse": []}, "hooks": {}}\n', '"hooks" is given twice'],
  ];
  for (const [agent, path, text, words] of cases) {
    it(`${agent}, ${words.split(',')[0]}: exit 2 CORDON_CONFIG_UNPARSEABLE naming the key and both places, the file as it was`, async () => {
      write({ [path]: text });
      const r = await cordon(['install-hooks', '--agent', agent, '--write']);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.json.error.code).toBe('CORDON_CONFIG_UNPARSEABLE');
      expect(r.json.error.message).toContain(join(home, path));
      expect(r.json.error.message).toContain(words);
      expect(r.json.error.message).toContain('JSON keeps only the last: give each key once');
      expect(read(path)).toBe(text);
    });
  }

  it('a config holding a byte that is not UTF-8 is refused (CORDON_CONFIG_UNPARSEABLE, line and column), its bytes kept', async () => {
    // Decoded, the bytes became U+FFFD and the file was written back so; uninstall then claimed the exact bytes were restored.
    const bytes = Buffer.concat([Buffer.from('{"model": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]);
    const file = join(home, '.claude/settings.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, bytes);
    const r = await cordon(['install-hooks', '--agent', 'claude-code', '--write']);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.json.error.code).toBe('CORDON_CONFIG_UNPARSEABLE');
    expect(r.json.error.message).toBe(`${file} is not valid UTF-8 (byte 0xff at line 1, column 12; the agent reads it as UTF-8 text: save it as such); refusing to edit it, the file is left untouched`);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('Hermes: a merge key (<<) on the way to what cordon edits is refused (CORDON_CONFIG_EDIT); one elsewhere is left alone', async () => {
    // Hermes reads YAML 1.1 (PyYAML), which merges `<<`: cordon's pre_tool_call beside it hid the user's merged one.
    const merged = 'hooks:\n  <<: {pre_tool_call: [{command: mine}]}\n';
    write({ '.hermes/config.yaml': merged });
    const r = await cordon(['install-hooks', '--agent', 'hermes', '--write']);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.json.error.code).toBe('CORDON_CONFIG_EDIT');
    expect(r.json.error.message).toContain('hooks holds a merge key (<<), which Hermes merges and cordon does not edit around');
    expect(read('.hermes/config.yaml')).toBe(merged);
    const elsewhere = 'base: &b {x: 1}\nmodel:\n  <<: *b\n';
    write({ '.hermes/config.yaml': elsewhere });
    const ok = await cordon(['install-hooks', '--agent', 'hermes', '--write']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(read('.hermes/config.yaml').startsWith(elsewhere)).toBe(true);
  });

  it('Codex: hooks.state written as an array of tables ([[hooks.state]]) is refused (CORDON_CONFIG_EDIT), neither file written', async () => {
    // The trust entries were dropped without a word and install, --check and doctor said "installed and current".
    const config = '[[hooks.state]]\nx = 1\n';
    write({ '.codex/config.toml': config });
    const r = await cordon(['install-hooks', '--agent', 'codex', '--write']);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.json.error.code).toBe('CORDON_CONFIG_EDIT');
    expect(r.json.error.message).toContain('(hooks.state is an array of tables ([[…]]), where a table belongs); the file is left untouched');
    expect(read('.codex/config.toml')).toBe(config);
    expect(existsSync(join(home, '.codex/hooks.json'))).toBe(false);
  });

  it('an event holding an object or a string is refused (CORDON_CONFIG_EDIT) instead of replaced; null gets the list', async () => {
    const refused: Array<[string, string, string]> = [
      ['claude-code', '.claude/settings.json', '{"hooks": {"PreToolUse": {"mine": 1}}}\n'],
      ['gemini', '.gemini/settings.json', '{"hooks": {"BeforeTool": "mine"}}\n'],
      ['hermes', '.hermes/config.yaml', 'hooks:\n  pre_tool_call: mine\n'],
    ];
    for (const [agent, path, text] of refused) {
      write({ [path]: text });
      const r = await cordon(['install-hooks', '--agent', agent, '--write']);
      expect([agent, r.exitCode]).toEqual([agent, 2]);
      expect(r.json.error.code).toBe('CORDON_CONFIG_EDIT');
      expect(r.json.error.message).toMatch(/holds (an object|a string) where the agent expects a list of hooks; cordon does not replace it/);
      expect(read(path)).toBe(text);
    }
    write({ '.claude/settings.json': '{"hooks": {"PreToolUse": null}}\n' });
    const r = await cordon(['install-hooks', '--agent', 'claude-code', '--write']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(read('.claude/settings.json')).hooks.PreToolUse).toHaveLength(1);
  });
});

describe('temp files are never predictable and never opened through a link', () => {
  it('links planted under every name the old code could use (one per pid) leave their target untouched', async () => {
    const victim = join(sandbox.dir('victim'), 'bashrc');
    writeFileSync(victim, '# the user\'s bashrc\n');
    const dirs = ['.claude', '.gemini', '.cursor', '.codex'];
    for (const dir of dirs) mkdirSync(join(project, dir), { recursive: true });
    const pidMax = Math.min(Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')), 1 << 16);
    // The old names: `<file>.cordon-<pid>.tmp` beside the config, for every pid this machine hands out (up to 65536).
    for (let pid = 1; pid <= pidMax; pid++) symlinkSync(victim, join(project, '.claude', `settings.json.cordon-${pid}.tmp`));
    for (const [dir, file] of [['.gemini', 'settings.json'], ['.cursor', 'hooks.json'], ['.codex', 'hooks.json']] as const) {
      for (let pid = 1; pid <= 4096; pid++) symlinkSync(victim, join(project, dir, `${file}.cordon-${pid}.tmp`));
      for (const name of [`${file}.tmp`, `.${file}.tmp`, `${file}~`, `${file}.cordon.tmp`]) symlinkSync(victim, join(project, dir, name));
    }
    // User-scope files too: the Codex trust config and the Hermes allowlist.
    for (const [path, file] of [['.codex', 'config.toml'], ['.hermes', 'shell-hooks-allowlist.json'], ['.hermes', 'config.yaml']] as const) {
      mkdirSync(join(home, path), { recursive: true });
      for (let pid = 1; pid <= 4096; pid++) symlinkSync(victim, join(home, path, `${file}.cordon-${pid}.tmp`));
    }
    const r = await cordon(['install-hooks', '--agent', 'claude-code', '--agent', 'gemini', '--agent', 'cursor', '--agent', 'codex', '--scope', 'project', '--write']);
    expect(r.exitCode, r.stderr).toBe(0);
    const h = await cordon(['install-hooks', '--agent', 'hermes', '--accept', '--write']);
    expect(h.exitCode, h.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('# the user\'s bashrc\n');
    for (const path of ['.claude/settings.json', '.gemini/settings.json', '.cursor/hooks.json', '.codex/hooks.json']) {
      expect(lstatSync(join(project, path)).isFile(), path).toBe(true);
      expect(read(path, project)).toContain('hook --agent');
    }
    expect(read('.hermes/shell-hooks-allowlist.json')).toContain('hook --agent hermes');
    expect(read('.codex/config.toml')).toContain('trusted_hash');
  }, 120_000);
});

describe('de-duplication keeps cordon covering every tool and lists each removal', () => {
  it('Claude: the "*" group stays, the copy in the user\'s "Bash" group goes (the user\'s own handler stays), in dry run and summary', async () => {
    const settings = {
      hooks: {
        PreToolUse: [
          { matcher: '*', hooks: [{ type: 'command', command: COMMAND('claude-code'), timeout: 30 }] },
          { matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/guard.sh' }, { type: 'command', command: COMMAND('claude-code') }] },
        ],
      },
    };
    write({ '.claude/settings.json': JSON.stringify(settings, null, 2) + '\n' });
    const dry = await runCordon(['install-hooks', '--agent', 'claude-code'], { env, cwd: project });
    expect(dry.stdout).toContain('removed: PreToolUse entry 2 (matcher "Bash"): removed cordon handler limited to some tools');
    const r = await cordon(['install-hooks', '--agent', 'claude-code', '--write']);
    expect(r.json.agents[0].changes[0].summary).toMatch(/add cordon to PostToolUse, PostToolUseFailure, SessionStart, SessionEnd; removed: PreToolUse entry 2 \(matcher "Bash"\)/);
    const pre = JSON.parse(read('.claude/settings.json')).hooks.PreToolUse;
    expect(pre).toEqual([settings.hooks.PreToolUse[0], { matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/guard.sh' }] }]);
  });

  it('every agent: cordon only inside narrower groups or entries, duplicated, or stale → after install every needed event has one covering cordon handler', async () => {
    const grouped = (agent: string, events: string[]) => ({
      hooks: Object.fromEntries(
        events.map((event) => [
          event,
          [
            { matcher: 'Bash', hooks: [{ type: 'command', command: COMMAND(agent) }] },
            { matcher: '', hooks: [{ type: 'command', command: '/old/cordon hook --agent ' + agent }] },
            { hooks: [{ type: 'command', command: COMMAND(agent) }, { type: 'command', command: COMMAND(agent) }] },
          ],
        ]),
      ),
    });
    write({
      '.claude/settings.json': JSON.stringify(grouped('claude-code', ['PreToolUse', 'PostToolUse'])),
      '.codex/hooks.json': JSON.stringify(grouped('codex', ['PreToolUse'])),
      '.gemini/settings.json': JSON.stringify(grouped('gemini', ['BeforeTool', 'AfterTool'])),
      '.cursor/hooks.json': JSON.stringify({ version: 1, hooks: { preToolUse: [{ matcher: 'Shell', command: COMMAND('cursor').replace(/ /g, ' ') }] } }),
      '.hermes/config.yaml': `hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: ${COMMAND('hermes')}\n    - command: ${COMMAND('hermes')}\n    - command: ${COMMAND('hermes')}\n`,
    });
    const r = await cordon(['install-hooks', ...AGENTS.flatMap((a) => ['--agent', a]), '--write']);
    expect(r.exitCode, r.stderr).toBe(0);
    const covering = (list: any[], command: string, layout: 'grouped' | 'flat') =>
      list.filter((e) => (e.matcher === undefined || e.matcher === '' || e.matcher === '*') && (layout === 'flat' ? e.command === command : e.hooks.some((h: any) => h.command === command))).length;
    const allOurs = (list: any[], layout: 'grouped' | 'flat') => list.flatMap((e) => (layout === 'flat' ? [e.command] : e.hooks.map((h: any) => h.command))).filter((c: string) => /hook --agent/.test(c));
    const check = (hooks: any, events: string[], agent: string, layout: 'grouped' | 'flat') => {
      for (const event of events) {
        expect(covering(hooks[event], COMMAND(agent), layout), `${agent} ${event}`).toBe(1);
        expect(allOurs(hooks[event], layout), `${agent} ${event}`).toEqual([COMMAND(agent)]);
      }
    };
    check(JSON.parse(read('.claude/settings.json')).hooks, ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'SessionStart', 'SessionEnd'], 'claude-code', 'grouped');
    check(JSON.parse(read('.codex/hooks.json')).hooks, ['PreToolUse', 'PostToolUse', 'SessionStart', 'SessionEnd'], 'codex', 'grouped');
    check(JSON.parse(read('.gemini/settings.json')).hooks, ['BeforeTool', 'AfterTool', 'SessionStart', 'SessionEnd'], 'gemini', 'grouped');
    check(JSON.parse(read('.cursor/hooks.json')).hooks, ['preToolUse', 'postToolUse', 'postToolUseFailure', 'sessionStart', 'sessionEnd'], 'cursor', 'flat');
    check((parseYaml(read('.hermes/config.yaml')) as any).hooks, ['pre_tool_call', 'post_tool_call', 'on_session_start', 'on_session_finalize'], 'hermes', 'flat');
    // Each removal is in the summary of its file.
    const summaries = r.json.agents.flatMap((a: any) => a.changes.map((c: any) => c.summary)).join('\n');
    expect(summaries).toContain('PreToolUse entry 1 (matcher "Bash"): removed cordon handler limited to some tools');
    // /old/cordon is not there: said as a cordon that no longer exists (this cordon's entry already covers the event).
    expect(summaries).toContain('PreToolUse entry 2 (matcher ""): removed an old hook command that pointed to a cordon that no longer exists at /old/cordon');
    expect(summaries).toContain('preToolUse entry 1 (matcher "Shell"): removed cordon handler limited to some tools');
    expect(summaries).toContain('pre_tool_call entry 3: removed duplicate cordon handler');
    expect(summaries).toContain('pre_tool_call entry 1 (matcher "terminal"): removed cordon handler limited to some tools');
    // And a second install changes nothing.
    const again = await cordon(['install-hooks', ...AGENTS.flatMap((a) => ['--agent', a]), '--write']);
    expect(again.json.agents.every((a: any) => a.changes.length === 0)).toBe(true);
  });
});

describe('Hermes config.yaml kept byte for byte', () => {
  const cases: Record<string, string> = {
    'the example: spaces before a comment, CRLF, no blank line added': 'model:\r\n  default: x   # c\r\nhooks:\r\n  pre_tool_call:\r\n    - command: ~/guard.sh     # mine\r\nhooks_auto_accept: false\r\n',
    'a user\'s empty hooks map': 'model: x   # c\nhooks: {}\n',
    'no final newline, no hooks yet': '# top\nmodel:   x',
    'an empty event list and odd indentation': 'hooks:\n    pre_tool_call: []\n    post_tool_call:\n    -   command: echo hi\n',
  };
  for (const [name, text] of Object.entries(cases)) {
    it(name, async () => {
      write({ '.hermes/config.yaml': text });
      const r = await cordon(['install-hooks', '--agent', 'hermes', '--write']);
      expect(r.exitCode, r.stderr).toBe(0);
      const installed = read('.hermes/config.yaml');
      // Every original line is still there as it was (only cordon's lines are new).
      for (const line of text.split(/\r?\n/)) if (!/: (\{\}|\[\])$/.test(line) && line !== '') expect(installed).toContain(line);
      if (text.includes('\r\n')) expect(installed.replace(/\r\n/g, '')).not.toContain('\n');
      expect(installed).not.toMatch(/\n\s*\n\s*\n/);
      expect((parseYaml(installed) as any).hooks.pre_tool_call.at(-1)).toEqual({ command: COMMAND('hermes'), timeout: 30 });
      const u = await cordon(['uninstall-hooks', '--agent', 'hermes', '--write']);
      expect(u.exitCode, u.stderr).toBe(0);
      expect(read('.hermes/config.yaml')).toBe(text);
    });
  }

  it('without the install record (another machine, a wiped data dir) uninstall still removes only cordon\'s lines', async () => {
    const text = 'model:\r\n  default: x   # c\r\nhooks:\r\n  pre_tool_call:\r\n    - command: ~/guard.sh     # mine\r\n';
    write({ '.hermes/config.yaml': text });
    expect((await cordon(['install-hooks', '--agent', 'hermes', '--write'])).exitCode).toBe(0);
    writeFileSync(join(sandbox.dataDir, 'install-hooks.json'), '{}');
    expect((await cordon(['uninstall-hooks', '--agent', 'hermes', '--write'])).exitCode).toBe(0);
    expect(read('.hermes/config.yaml')).toBe(text);
  });
});

describe('hooks installed with --command', () => {
  // Found by a walkthrough: `--command /usr/bin/true` (or any wrapper not shaped like cordon's own
  // command) was not recognised by uninstall-hooks given the same --command, which left every
  // entry (and the file install created) in place.
  for (const agent of AGENTS) {
    it(`${agent}: uninstall with the same --command removes the entries and the file install created`, async () => {
      const wrapper = join(sandbox.dir('bin'), 'my-cordon');
      writeFileSync(wrapper, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      const install = await cordon(['install-hooks', '--agent', agent, '--command', wrapper, '--write']);
      expect(install.exitCode, install.stderr).toBe(0);
      const files: string[] = install.json.agents.flatMap((a: { changes: Array<{ path: string }> }) => a.changes.map((c) => c.path));
      expect(files.length).toBeGreaterThan(0);
      // Codex keeps the command in hooks.json and only its trust entry in config.toml.
      expect(files.some((path) => readFileSync(path, 'utf8').includes(wrapper))).toBe(true);
      const again = await cordon(['install-hooks', '--agent', agent, '--command', wrapper, '--check']);
      expect(again.exitCode, again.stdout).toBe(0);
      const uninstall = await cordon(['uninstall-hooks', '--agent', agent, '--command', wrapper, '--write']);
      expect(uninstall.exitCode, uninstall.stderr).toBe(0);
      // Install created every file here (an empty home), so uninstall deletes them again.
      for (const path of files) expect(existsSync(path), path).toBe(false);
    });
  }
});

describe('uninstall removes only what install added', () => {
  const existing: Record<string, { agent: string; path: string; text: string }> = {
    'Claude {}': { agent: 'claude-code', path: '.claude/settings.json', text: '{}' },
    'Gemini {}': { agent: 'gemini', path: '.gemini/settings.json', text: '{}\n' },
    'Codex {"hooks":{}}': { agent: 'codex', path: '.codex/hooks.json', text: '{"hooks":{}}' },
    'Cursor {"version":1,"hooks":{}}': { agent: 'cursor', path: '.cursor/hooks.json', text: '{"version":1,"hooks":{}}' },
    'Hermes hooks: {}': { agent: 'hermes', path: '.hermes/config.yaml', text: 'hooks: {}\n' },
    'Codex config.toml with only a comment': { agent: 'codex', path: '.codex/config.toml', text: '# nothing yet\n' },
  };
  for (const [name, { agent, path, text }] of Object.entries(existing)) {
    it(`${name}: existed before install, so uninstall gives it back byte for byte`, async () => {
      write({ [path]: text });
      expect((await cordon(['install-hooks', '--agent', agent, '--write'])).exitCode).toBe(0);
      expect(read(path)).not.toBe(text);
      const u = await cordon(['uninstall-hooks', '--agent', agent, '--write']);
      expect(u.exitCode, u.stderr).toBe(0);
      expect(read(path)).toBe(text);
    });
  }

  it('a file install created is deleted only while nothing else has written to it', async () => {
    expect((await cordon(['install-hooks', '--agent', 'claude-code', '--agent', 'gemini', '--write'])).exitCode).toBe(0);
    // The user adds a setting to Gemini's file after install.
    const gemini = JSON.parse(read('.gemini/settings.json'));
    write({ '.gemini/settings.json': JSON.stringify({ ...gemini, ui: { theme: 'GitHub' } }, null, 2) + '\n' });
    const u = await cordon(['uninstall-hooks', '--agent', 'claude-code', '--agent', 'gemini', '--write']);
    expect(u.exitCode, u.stderr).toBe(0);
    expect(existsSync(join(home, '.claude/settings.json'))).toBe(false);
    expect(JSON.parse(read('.gemini/settings.json'))).toEqual({ ui: { theme: 'GitHub' } });
    expect(u.json.agents.find((a: any) => a.agent === 'claude-code').changes[0].deleted).toBe(true);
    expect(u.json.agents.find((a: any) => a.agent === 'gemini').changes[0].deleted).toBe(false);
  });

  it('the record is owner-only and the dry run of uninstall shows exactly what --write does', async () => {
    write({ '.claude/settings.json': '{}' });
    expect((await cordon(['install-hooks', '--agent', 'claude-code', '--write'])).exitCode).toBe(0);
    expect(lstatSync(join(sandbox.dataDir, 'install-hooks.json')).mode & 0o777).toBe(0o600);
    const dry = await cordon(['uninstall-hooks', '--agent', 'claude-code']);
    expect(dry.json.agents[0].changes[0].diff).toMatch(/\n\+\{\}\n\\ No newline at end of file/);
    expect(read('.claude/settings.json')).not.toBe('{}');
  });
});

describe('a multi-agent install writes every file or none', () => {
  const frozen: string[] = [];
  /** Makes `dir` refuse new files whoever runs the test: chmod 0500, or for root (who ignores modes) the immutable attribute. */
  const unwritableDir = (dir: string) => {
    mkdirSync(dir, { recursive: true });
    if (process.getuid?.() === 0) execFileSync('chattr', ['+i', dir]);
    else chmodSync(dir, 0o500);
    frozen.push(dir);
  };
  afterEach(() => {
    for (const dir of frozen.splice(0)) {
      if (process.getuid?.() === 0) execFileSync('chattr', ['-i', dir]);
      else chmodSync(dir, 0o700);
    }
  });

  it('the example: ~/.gemini unwritable → Claude\'s file is put back, exit 2 CORDON_HOOKS_WRITE_FAILED naming both', async () => {
    write({ '.claude/settings.json': '{"model":"opus"}\n' });
    unwritableDir(join(home, '.gemini'));
    const r = await cordon(['install-hooks', '--all', '--write']);
    expect(r.exitCode).toBe(2);
    expect(r.json.error.code).toBe('CORDON_HOOKS_WRITE_FAILED');
    expect(r.json.error.message).toContain(`could not write ${join(home, '.gemini/settings.json')}`);
    expect(r.json.error.message).toContain(`put back as it was (${join(home, '.claude/settings.json')}), so nothing changed`);
    expect(r.json.error.details.not_written).toContain(join(home, '.claude/settings.json'));
    expect(read('.claude/settings.json')).toBe('{"model":"opus"}\n');
    expect(existsSync(join(sandbox.dataDir, 'install-hooks.json'))).toBe(false);
    const human = await runCordon(['install-hooks', '--all', '--write'], { env, cwd: project });
    expect(human.exitCode).toBe(2);
    expect(human.stderr.replace(/\s+/g, ' ')).toContain('so nothing changed');
  });

  it('a file install would create, a Codex pair, a target that cannot be written: none written', async () => {
    unwritableDir(join(home, '.gemini'));
    const r = await cordon(['install-hooks', '--agent', 'claude-code', '--agent', 'codex', '--agent', 'gemini', '--write']);
    expect(r.exitCode).toBe(2);
    expect(r.json.error.code).toBe('CORDON_HOOKS_WRITE_FAILED');
    for (const path of ['.claude/settings.json', '.codex/hooks.json', '.codex/config.toml']) expect(existsSync(join(home, path)), path).toBe(false);
  });

  it('uninstall: Claude\'s deleted file comes back when Cursor\'s cannot be written', async () => {
    expect((await cordon(['install-hooks', '--agent', 'claude-code', '--agent', 'cursor', '--write'])).exitCode).toBe(0);
    const claude = read('.claude/settings.json');
    const cursor = read('.cursor/hooks.json');
    unwritableDir(join(home, '.cursor'));
    const u = await cordon(['uninstall-hooks', '--agent', 'claude-code', '--agent', 'cursor', '--write']);
    expect(u.exitCode).toBe(2);
    expect(u.json.error.code).toBe('CORDON_HOOKS_WRITE_FAILED');
    expect(read('.claude/settings.json')).toBe(claude);
    expect(read('.cursor/hooks.json')).toBe(cursor);
  });
});

describe('Codex trust keys are the ones Codex computes, however CODEX_HOME is spelled', () => {
  const KEYS = ['pre_tool_use:0:0', 'post_tool_use:0:0', 'session_start:0:0', 'session_end:0:0'];
  const stateKeys = (path: string) => Object.keys((parseToml(readFileSync(path, 'utf8')) as any).hooks?.state ?? {}).sort();

  it('a symlinked CODEX_HOME (absolute, relative, chained): keys under its real path, and the install warns that trust is unconfirmed', async () => {
    const real = sandbox.dir('dotfiles/codex');
    symlinkSync(real, join(home, 'codex-link'));
    symlinkSync('codex-link', join(home, 'codex-hop'));
    for (const value of [join(home, 'codex-link'), relative(project, join(home, 'codex-link')), join(home, 'codex-hop'), `${join(home, 'codex-link')}/./`]) {
      const r = await cordon(['install-hooks', '--agent', 'codex', '--write'], { CODEX_HOME: value });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.json.agents[0].warnings).toEqual([UNCONFIRMED]);
      expect(r.stderr).toContain('trust NOT confirmed');
      expect(stateKeys(join(real, 'config.toml')), value).toEqual(KEYS.map((k) => `${realpathSync(real)}/hooks.json:${k}`).sort());
    }
  });

  it('without CODEX_HOME, ~/.codex is keyed as written, not resolved (Codex does not canonicalise it)', async () => {
    const real = sandbox.dir('dotfiles/codex');
    symlinkSync(real, join(home, '.codex'));
    const r = await cordon(['install-hooks', '--agent', 'codex', '--write']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(stateKeys(join(real, 'config.toml'))).toEqual(KEYS.map((k) => `${home}/.codex/hooks.json:${k}`).sort());
  });

  it('a CODEX_HOME Codex cannot use ("~/…" is not expanded; missing; a file) is refused with exit 2, nothing written', async () => {
    for (const value of ['~/.codex', join(home, 'missing'), join(home, 'file')]) {
      writeFileSync(join(home, 'file'), 'x');
      const r = await cordon(['install-hooks', '--agent', 'codex', '--write'], { CODEX_HOME: value });
      expect(r.exitCode, value).toBe(2);
      expect(r.json.error.code).toBe('CORDON_BAD_INPUT');
      expect(r.json.error.message).toContain(`CODEX_HOME points to ${JSON.stringify(value)}`);
    }
    expect(existsSync(join(home, '.codex'))).toBe(false);
  });

  it('stale cordon entries under another spelling of the path (the old install) are replaced; uninstall removes every cordon entry, the user\'s stay', async () => {
    const real = sandbox.dir('dotfiles/codex');
    const link = join(home, 'codex-link');
    symlinkSync(real, link);
    const userHash = trustHash({ event: 'Stop', command: '/usr/local/bin/mine' });
    // What the old code wrote: hooks.json, plus four trust entries keyed by the link path.
    const hooks = { hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: COMMAND('codex'), timeout: 30 }] }], PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: COMMAND('codex'), timeout: 30 }] }], SessionStart: [{ hooks: [{ type: 'command', command: COMMAND('codex'), timeout: 30 }] }], SessionEnd: [{ hooks: [{ type: 'command', command: COMMAND('codex'), timeout: 3 }] }], Stop: [{ hooks: [{ type: 'command', command: '/usr/local/bin/mine' }] }] } };
    writeFileSync(join(real, 'hooks.json'), JSON.stringify(hooks, null, 2) + '\n');
    const stale = [
      ['PreToolUse', 'pre_tool_use', '*', 30],
      ['PostToolUse', 'post_tool_use', '*', 30],
      ['SessionStart', 'session_start', undefined, 30],
      ['SessionEnd', 'session_end', undefined, 3],
    ] as const;
    const toml = [
      'model = "x"',
      '',
      `[hooks.state."${link}/hooks.json:stop:0:0"]`,
      `trusted_hash = "${userHash}"`,
      ...stale.flatMap(([event, label, matcher, timeout]) => ['', `[hooks.state."${link}/hooks.json:${label}:0:0"]`, `trusted_hash = "${trustHash({ event, matcher, command: COMMAND('codex'), timeout })}"`]),
      '',
    ].join('\n');
    writeFileSync(join(real, 'config.toml'), toml);
    const r = await cordon(['install-hooks', '--agent', 'codex', '--write'], { CODEX_HOME: link });
    expect(r.exitCode, r.stderr).toBe(0);
    const keys = stateKeys(join(real, 'config.toml'));
    expect(keys).toEqual([...KEYS.map((k) => `${realpathSync(real)}/hooks.json:${k}`), `${link}/hooks.json:stop:0:0`].sort());
    const u = await cordon(['uninstall-hooks', '--agent', 'codex', '--write'], { CODEX_HOME: link });
    expect(u.exitCode, u.stderr).toBe(0);
    expect(stateKeys(join(real, 'config.toml'))).toEqual([`${link}/hooks.json:stop:0:0`]);
    expect(JSON.parse(readFileSync(join(real, 'hooks.json'), 'utf8')).hooks).toEqual({ Stop: hooks.hooks.Stop });
  });
});
