import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo } from '../../../../test/support/git.js';
import { closestName } from '../../src/util/closest-name.js';
import { terminalLines } from '../../src/output/terminal.js';
import { fastCommandApi } from '../../src/fast/ledger-api.js';
import { CordonHost } from '../../src/index.js';

// What oclif CLIs give their users for free: -h and -v, "did you mean" for a
// mistyped command (exit 2, like every usage error), first-party short names, and a missing
// agent named with the one the user most likely meant.

let box: Sandbox;
beforeEach(() => (box = makeSandbox('cordon-surface-')));
afterEach(() => box.cleanup());

describe('closestName', () => {
  it('takes the nearest name within a third of its length, else the one name the typed one starts or ends', () => {
    expect(closestName('claude', ['aider', 'claude-code', 'codex'])).toBe('claude-code');
    expect(closestName('gemini-cli', ['gemini', 'codex'])).toBe('gemini');
    expect(closestName('chek', ['check', 'arm', 'status'])).toBe('check');
    expect(closestName('cdoex', ['codex', 'cursor'])).toBe('codex');
    // Two neighbouring letters swapped are one edit, so short names get a guess too.
    expect(closestName('jsno', ['json', 'repo'])).toBe('json');
    expect(closestName('rpeo', ['json', 'repo'])).toBe('repo');
    expect(closestName('ojsn', ['json', 'repo'])).toBeUndefined();
    expect(closestName('zzzzzz', ['check', 'arm'])).toBeUndefined();
    expect(closestName('x', [])).toBeUndefined();
  });

  it('is lent to plugins as api.services.names.closest, the same function', () => {
    const host = new CordonHost({ dataDir: join(box.root, 'data'), configDir: join(box.root, 'config'), cacheDir: join(box.root, 'cache') }, '0.0.0-test');
    const names = host.apiFor('codex').services.names;
    expect(names.closest).toBe(closestName);
    expect(names.closest('recrod', ['init', 'record', 'resume', 'show'])).toBe('record');
    expect(Object.isFrozen(names)).toBe(true);
  });

  it("lends the host's terminal escaping as api.services.terminal.lines, on the plugin host and the fast command route", async () => {
    const host = new CordonHost({ dataDir: join(box.root, 'data'), configDir: join(box.root, 'config'), cacheDir: join(box.root, 'cache') }, '0.0.0-test');
    const terminal = host.apiFor('codex').services.terminal;
    expect(terminal.lines).toBe(terminalLines);
    expect(terminal.lines('a\x1b]52;c;x\x07\tb\nc')).toBe('a\\u001b]52;c;x\\u0007\tb\nc');
    expect(Object.isFrozen(terminal)).toBe(true);
    expect(fastCommandApi().services.terminal?.lines).toBe(terminalLines);
  });
});

/** Every `.ts` file under `dir`, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The text of every string and template literal in a TypeScript file (comments left out). */
function literalsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the product name', () => {
  it('is written as the command, `cordon`, in every message, help text and prompt of the host and the plugins', () => {
    const dirs = [join(REPO_ROOT, 'packages/host/src'), join(REPO_ROOT, 'packages/plugin-api/src'), ...readdirSync(join(REPO_ROOT, 'plugins')).map((p) => join(REPO_ROOT, 'plugins', p, 'src'))];
    const capitalised = dirs
      .flatMap((dir) => sourceFiles(dir).flatMap((file) => literalsOf(file).map((text) => ({ file: file.slice(REPO_ROOT.length + 1), text }))))
      // Older versions wrote this marker into stored verifier evidence, which is still read.
      .filter(({ text }) => /\bCordon\b(?![\w$])/.test(text) && !/truncated by Cordon/.test(text));
    expect(capitalised).toEqual([]);
  });
});

describe('the command line', () => {
  it('-h is help on every route: the fast check, control run and reduce, the hook, and oclif', async () => {
    for (const args of [['check', '-h'], ['control', 'run', '-h'], ['reduce', '-h'], ['hook', '-h'], ['arm', '-h']]) {
      const r = await runCordon(args, { env: box.env });
      expect([args.join(' '), r.exitCode, r.stderr]).toEqual([args.join(' '), 0, '']);
      expect(r.stdout, args.join(' ')).toMatch(/^USAGE$/m);
      expect(r.stdout, args.join(' ')).toContain(`$ cordon ${args.slice(0, -1).join(' ')}`);
    }
  });

  it('-v and --version print the version: the line oclif would print, without loading oclif', async () => {
    // oclif's own line for this package (config.userAgent), in this process: the same Node runs the CLI.
    const { Config } = await import('@oclif/core');
    const userAgent = (await Config.load(join(REPO_ROOT, 'packages/host'))).userAgent;
    const probe = join(box.dir('module-probe'), 'probe.cjs');
    const out = join(box.dir('module-probe'), 'modules.json');
    writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));\n`);
    for (const args of [['-v'], ['--version'], ['--version', 'anything', '--after']]) {
      const r = await runCordon(args, { env: { ...box.env, NODE_OPTIONS: `--require ${probe}` } });
      expect([args, r.exitCode, r.stdout, r.stderr]).toEqual([args, 0, `${userAgent}\n`, '']);
      expect((JSON.parse(readFileSync(out, 'utf8')) as string[]).filter((p) => /@oclif|dist\/oclif\//.test(p))).toEqual([]);
    }
  });

  it('--version --json (and -v --json) print the version line as one JSON document', async () => {
    const line = (await runCordon(['--version'], { env: box.env })).stdout.trim();
    for (const argv of [['--version', '--json'], ['-v', '--json']]) {
      const r = await runCordon(argv, { env: box.env });
      expect([argv.join(' '), r.exitCode, r.stderr]).toEqual([argv.join(' '), 0, '']);
      const document = JSON.parse(r.stdout) as { name: string; version: string; node: string; platform: string; arch: string };
      expect(document).toEqual({ name: '@cordon/host', version: expect.stringMatching(/^\d+\.\d+\.\d+/), node: process.versions.node, platform: process.platform, arch: process.arch });
      // The same facts as the text line oclif prints.
      expect(line).toBe(`${document.name}/${document.version} ${document.platform}-${document.arch} node-v${document.node}`);
    }
    // `cordon version` is no command: under --json the refusal names the form that works.
    const r = await runCordon(['version', '--json'], { env: box.env });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout).error.message).toContain('Did you mean `cordon --version --json`?');
  });

  it('a mistyped command is refused with exit 2 and the command the user meant (no terminal to ask)', async () => {
    const cases: Array<[string[], string | undefined]> = [
      [['chek'], 'cordon check'],
      [['control', 'prob'], 'cordon control probe'],
      [['instal-hooks'], 'cordon install-hooks'],
      // What other CLIs call it: no spelling distance finds these, a table does.
      [['completion'], 'cordon autocomplete'],
      [['completions'], 'cordon autocomplete'],
      [['version'], 'cordon --version'],
      [['zzzzzz'], undefined],
    ];
    // Asking for help on the typo reads the same: `chek -h`, `help chek`.
    const typed = cases.flatMap(([args, meant]) => [[args, args, meant], [[...args, '-h'], args, meant], [['help', ...args], args, meant]] as const);
    for (const [argv, args, meant] of typed) {
      const r = await runCordon([...argv], { env: box.env });
      expect([argv.join(' '), r.exitCode]).toEqual([argv.join(' '), 2]);
      // Laid out as every cordon error: the message on one line, then its code.
      const [first, code] = r.stderr.split('\n');
      expect(first).toMatch(new RegExp(`^ {4}Error: \`${args.join(' ')}\` is not a cordon command\\.`));
      expect(code).toBe('    Code: CORDON_BAD_INPUT');
      if (meant) expect(first).toContain(`Did you mean \`${meant}\`?`);
      else expect(first).not.toContain('Did you mean');
    }
    // Under --json, the error document every command prints.
    for (const argv of [['chek', '--json'], ['chek', '--bogus', '--json']]) {
      const r = await runCordon(argv, { env: box.env });
      expect([argv.join(' '), r.exitCode]).toEqual([argv.join(' '), 2]);
      expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'CORDON_BAD_INPUT', details: {}, message: expect.stringMatching(/^`chek` is not a cordon command\. Did you mean `cordon check`\?/) } });
    }
  });

  it('words after a command that takes none name that command, not a missing one', async () => {
    for (const argv of [['check', 'extra'], ['check', 'extra', '-h'], ['help', 'check', 'extra'], ['status', 'x', 'y']]) {
      const r = await runCordon(argv, { env: box.env });
      expect([argv.join(' '), r.exitCode]).toEqual([argv.join(' '), 2]);
      const [command, ...words] = argv.filter((a) => a !== 'help' && a !== '-h');
      expect(r.stderr.split('\n')[0]).toBe(`    Error: \`cordon ${command}\` takes no argument \`${words.join(' ')}\`. Run \`cordon ${command} --help\` for what it takes.`);
    }
    // A typo of a sibling command stays a typo.
    const typo = await runCordon(['control', 'prob'], { env: box.env });
    expect(typo.stderr).toContain('Did you mean `cordon control probe`?');
  });

  it('a mistyped subcommand followed by its arguments names the subcommand meant (plugins instal codex)', async () => {
    const cases = [
      [['plugins', 'instal', 'codex'], 'plugins instal', 'plugins install'],
      [['plugins', 'uninstal', 'charts', 'otlp'], 'plugins uninstal', 'plugins uninstall'],
      [['plugins', 'inspcet', 'codex', '--json'], 'plugins inspcet', 'plugins inspect'],
      [['help', 'plugins', 'instal', 'codex'], 'plugins instal', 'plugins install'],
    ] as const;
    for (const [argv, typed, meant] of cases) {
      const r = await runCordon([...argv], { env: box.env });
      const message = `\`${typed}\` is not a cordon command. Did you mean \`cordon ${meant}\`? Run \`cordon plugins --help\` for the list.`;
      if ((argv as readonly string[]).includes('--json')) expect([argv.join(' '), r.exitCode, JSON.parse(r.stdout)]).toEqual([argv.join(' '), 2, { error: { code: 'CORDON_BAD_INPUT', details: {}, message } }]);
      else expect([argv.join(' '), r.exitCode, r.stderr]).toEqual([argv.join(' '), 2, `    Error: ${message}\n    Code: CORDON_BAD_INPUT\n`]);
    }
    // Words close to no subcommand, and a whole subcommand's extra words, are arguments not taken.
    for (const [argv, command, words] of [[['plugins', 'codex'], 'plugins', 'codex'], [['plugins', 'reset', 'extra'], 'plugins reset', 'extra']] as const) {
      const r = await runCordon([...argv], { env: box.env });
      expect([argv.join(' '), r.exitCode, r.stderr.split('\n')[0]]).toEqual([argv.join(' '), 2, `    Error: \`cordon ${command}\` takes no argument \`${words}\`. Run \`cordon ${command} --help\` for what it takes.`]);
    }
  });

  // Found by a fresh user: `cordon arn lbl --allow x` said `` `arn lbl` is not a cordon command`` with no guess.
  it('a mistyped command followed by arguments names the mistyped word alone, with the command meant', async () => {
    const cases = [
      [['arn', 'lbl', '--allow', 'x'], 'arn', 'cordon arm', 'cordon help'],
      [['chek', 'foo'], 'chek', 'cordon check', 'cordon help'],
      [['statsu', 'foo', 'bar'], 'statsu', 'cordon status', 'cordon help'],
      [['statsu', 'foo', 'bar', '--json', '-x'], 'statsu', 'cordon status', 'cordon help'],
      [['armm', 'foo'], 'armm', 'cordon arm', 'cordon help'],
      [['help', 'arn', 'lbl'], 'arn', 'cordon arm', 'cordon help'],
      [['arn', 'lbl', '-h'], 'arn', 'cordon arm', 'cordon help'],
      [['completion', 'bash'], 'completion', 'cordon autocomplete', 'cordon help'],
      // The words that name the subcommands of the one meant are part of the typo.
      [['contrl', 'rn', '--', 'ls'], 'contrl rn', 'cordon control run', 'cordon help'],
      // A subcommand's typo points at its topic's help, as `plugins lnk` does.
      [['control', 'rn', '--', 'ls'], 'control rn', 'cordon control run', 'cordon control --help'],
      [['control', 'rn'], 'control rn', 'cordon control run', 'cordon control --help'],
      [['plugins', 'lnk'], 'plugins lnk', 'cordon plugins link', 'cordon plugins --help'],
      [['zzzzzz', 'a', 'b'], 'zzzzzz', undefined, 'cordon help'],
      [['control', 'zzzzzz'], 'control zzzzzz', undefined, 'cordon control --help'],
    ] as const;
    for (const [argv, typed, meant, help] of cases) {
      const r = await runCordon([...argv], { env: box.env });
      const message = `\`${typed}\` is not a cordon command.${meant ? ` Did you mean \`${meant}\`?` : ''} Run \`${help}\` for the list.`;
      if ((argv as readonly string[]).includes('--json')) expect([argv.join(' '), r.exitCode, JSON.parse(r.stdout)]).toEqual([argv.join(' '), 2, { error: { code: 'CORDON_BAD_INPUT', details: {}, message } }]);
      else expect([argv.join(' '), r.exitCode, r.stderr]).toEqual([argv.join(' '), 2, `    Error: ${message}\n    Code: CORDON_BAD_INPUT\n`]);
    }
  });

  // Found by a fresh user: `cordon -x` and `cordon --verbose check` said `` `-x` is not a cordon command``.
  it('a flag before any command is named a flag, with the command it belongs to when one follows', async () => {
    const flagLead = (flag: string) => `\`${flag}\` is a flag, not a cordon command: before a command, cordon takes only --repo DIR, --help (-h) and --version (-v).`;
    const cases = [
      [['-x'], `${flagLead('-x')} A command's flags go after its name: \`cordon <command> -x\`. Run \`cordon help\` for the commands.`],
      [['--verbose', 'check'], `${flagLead('--verbose')} Did you mean \`cordon check --verbose\`? Run \`cordon help\` for the commands.`],
      [['--verbose', 'control', 'run', '--', 'true'], `${flagLead('--verbose')} Did you mean \`cordon control run --verbose -- true\`? Run \`cordon help\` for the commands.`],
      // Found by a fresh user: `cordon --rep ../r1 status` was told cordon takes no --repo before a command.
      [['--rep', '../r1', 'status'], `${flagLead('--rep')} Did you mean \`cordon --repo ../r1 status\`? Run \`cordon help\` for the commands.`],
      [['--rpeo=../r1', 'check'], `${flagLead('--rpeo=../r1')} Did you mean \`cordon --repo=../r1 check\`? Run \`cordon help\` for the commands.`],
      [['--repo', '../r1'], `${flagLead('--repo')} It takes a directory and a command after it: \`cordon --repo DIR <command>\`. Run \`cordon help\` for the commands.`],
      // Found by a fresh user: `cordon -V` was told to put -V after a command.
      [['-V'], `${flagLead('-V')} Did you mean \`cordon -v\`? Run \`cordon help\` for the commands.`],
      [['-H', 'check'], `${flagLead('-H')} Did you mean \`cordon -h check\`? Run \`cordon help\` for the commands.`],
    ] as const;
    for (const [argv, message] of cases) {
      const r = await runCordon([...argv], { env: box.env });
      expect([argv.join(' '), r.exitCode, r.stderr]).toEqual([argv.join(' '), 2, `    Error: ${message}\n    Code: CORDON_BAD_INPUT\n`]);
    }
    const json = await runCordon(['-x', '--json'], { env: box.env });
    expect([json.exitCode, JSON.parse(json.stdout).error.message]).toEqual([2, `${flagLead('-x')} A command's flags go after its name: \`cordon <command> -x\`. Run \`cordon help\` for the commands.`]);
  });

  it('a command a first-party plugin adds names the plugin to install', async () => {
    for (const [args, plugin] of [[['pcodx', 'show'], 'codex'], [['wrap', '--', 'aider'], 'aider'], [['help', 'pcodx'], 'codex'], [['wrap', '-h'], 'aider']] as const) {
      const r = await runCordon([...args], { env: box.env });
      expect(r.exitCode).toBe(2);
      expect(r.stderr.replace(/\s*\n\s*(›\s*)?/g, ' ')).toContain(`It comes with the @cordon/${plugin} plugin: \`cordon plugins link ${join(REPO_ROOT, 'plugins', plugin)} --no-install\`.`);
    }
  });

  it('a typed command with control characters is shown escaped', async () => {
    const r = await runCordon(['ch\u001b]52;c;eA==\u0007ek'], { env: box.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).toContain('\\u001b');
  });

  it('the plugins topic describes itself as a topic', async () => {
    const r = await runCordon(['--help'], { env: box.env });
    expect(r.stdout).not.toContain('Installs a plugin into cordon.');
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/plugins\s+Install, list, update and remove cordon plugins/);
  });

  it('plugins --json lists name, version, type, directory and commands of each plugin, not oclif\'s internals', async () => {
    linkPlugins(box.dataDir, ['codex', 'claude-code']);
    const r = await runCordon(['plugins', '--json'], { env: box.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const listed = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(r.stdout.length).toBeLessThan(20_000);
    const codex = listed.find((p) => p.name === '@cordon/codex')!;
    expect(Object.keys(codex).sort()).toEqual(['commands', 'name', 'root', 'type', 'version']);
    expect(codex).toMatchObject({ type: 'link', commands: expect.arrayContaining(['pcodx show', 'pcodx serve']) });
    for (const p of listed) expect(Object.keys(p)).not.toContain('options');
    // Each command once, under the plugin whose command runs (cordon's own `plugins`, `plugins install`).
    const all = listed.flatMap((p) => p.commands as string[]);
    expect(all.length).toBe(new Set(all).size);
    expect(listed.find((p) => p.name === '@cordon/host')!.commands).toEqual(expect.arrayContaining(['plugins', 'plugins install']));
  });

  it('a USAGE line cordon writes or takes from oclif is typed as users type it and names every flag its help lists (wrap, plugins inspect --json)', async () => {
    linkPlugins(box.dataDir, ['aider', 'codex']);
    const commands = [['wrap'], ['control', 'run'], ['pcodx'], ['plugins'], ['plugins', 'inspect'], ['plugins', 'install'], ['plugins', 'link'], ['plugins', 'uninstall'], ['plugins', 'reset'], ['plugins', 'update'], ['status']];
    for (const command of commands) {
      const help = await runCordon([...command, '--help'], { env: box.env });
      expect(help.exitCode, help.stderr).toBe(0);
      const section = (name: string) => new RegExp(`^${name}\\n([\\s\\S]*?)(?:\\n\\n|$)`, 'm').exec(help.stdout)?.[1] ?? '';
      const usage = section('USAGE');
      expect(usage, command.join(' ')).toContain(`$ cordon ${command.join(' ')}`);
      // oclif's own spelling of an id (`plugins:inspect`) is not what users type.
      expect(usage, command.join(' ')).not.toMatch(/cordon [\w-]+:[\w-]/);
      // A flag with a short name may be listed by either name (oclif writes `[-h]`, cordon `[--json]`).
      const flags = [...`${section('FLAGS')}\n${section('GLOBAL FLAGS')}`.matchAll(/^ {2}(?:(-\w), )? *(--(?:\[no-\])?[\w-]+)/gm)].map((m) => [m[1], m[2]!.replace('[no-]', '')] as const);
      for (const [short, long] of flags) expect(usage, `${command.join(' ')}: ${long}`).toMatch(new RegExp(`[[|] ?(${short ? `${short}|` : ''}${long})\\b`));
    }
  });

  it('a missing agent is named with the one the user meant; an installed agent without a runner says what to do', async () => {
    linkPlugins(box.dataDir, ['aider', 'claude-code', 'codex', 'gemini']);
    const repo = await makeRepo(box.dir('repo'), { 'src/a.txt': 'a\n' });
    const claude = await runCordon(['run', 'x', '--agent', 'claude', '--allow', 'src/**'], { cwd: repo, env: box.env });
    expect(claude.exitCode).toBe(2);
    expect(claude.stderr.replace(/\s+/g, ' ')).toContain('did you mean "claude-code"?');
    const aider = await runCordon(['run', 'x', '--agent', 'aider', '--allow', 'src/**'], { cwd: repo, env: box.env });
    expect(aider.exitCode).toBe(2);
    expect(aider.stderr.replace(/\s+/g, ' ')).toContain('cordon wrap -- aider');
    const hooks = await runCordon(['install-hooks', '--agent', 'claude'], { env: box.env });
    expect(hooks.exitCode).toBe(2);
    expect(hooks.stderr.replace(/\s+/g, ' ')).toContain('did you mean "claude-code"?');
    // install-hooks names agents, not dialects, and lists only those that take hooks (aider takes none).
    const typo = await runCordon(['install-hooks', '--agent', 'claud-code'], { env: box.env });
    expect({ exitCode: typo.exitCode, stderr: typo.stderr }).toEqual({
      exitCode: 2,
      stderr: '    Error: no installed agent named "claud-code" takes hooks (those that do: claude-code, codex, gemini); did you mean "claude-code"?\n    Code: CORDON_REGISTRY_MISSING\n',
    });
    const typoJson = await runCordon(['uninstall-hooks', '--agent', 'claud-code', '--json'], { env: box.env });
    expect(typoJson.exitCode).toBe(2);
    expect(JSON.parse(typoJson.stdout).error.details).toEqual({ registry: 'dialects', name: 'claud-code', known: ['claude-code', 'codex', 'gemini'], suggestion: 'claude-code' });
    const hookless = await runCordon(['install-hooks', '--agent', 'aidr'], { env: box.env });
    expect(hookless.stderr.split('\n')[0]).toBe('    Error: no installed agent named "aidr" takes hooks (those that do: claude-code, codex, gemini); "aider", the closest, takes no hooks: run it with `cordon wrap -- aider`');
    const unknown = await runCordon(['install-hooks', '--agent', 'windsurf'], { env: box.env });
    expect(unknown.stderr.replace(/\s+/g, ' ')).toContain('cordon plugins install <name>');
    // control guard says the same of an agent it does not know, in the same words (aider's
    // calls reach the hook through `cordon wrap`'s shim, so it counts there).
    const guard = await runCordon(['control', 'guard', '--agent', 'claud-code'], { env: box.env });
    expect({ exitCode: guard.exitCode, stderr: guard.stderr }).toEqual({
      exitCode: 2,
      stderr: '    Error: no installed agent named "claud-code" takes hooks (those that do: aider, claude-code, codex, gemini); did you mean "claude-code"?\n    Code: CORDON_REGISTRY_MISSING\n',
    });
    // -a, as install-hooks and hook take it.
    const guardShort = await runCordon(['control', 'guard', '-a', 'claud-code'], { env: box.env });
    expect({ exitCode: guardShort.exitCode, stderr: guardShort.stderr }).toEqual({ exitCode: guard.exitCode, stderr: guard.stderr });
    const guardJson = await runCordon(['control', 'guard', '--agent', 'windsurf', '--json'], { env: box.env });
    expect(JSON.parse(guardJson.stdout).error).toMatchObject({ code: 'CORDON_REGISTRY_MISSING', message: expect.stringMatching(/^no installed agent named "windsurf" takes hooks \(those that do: aider, claude-code, codex, gemini\); .*cordon plugins install <name>/) });
  });

  it('with no plugin, a missing agent names the first-party plugin and, from a checkout, its link command', async () => {
    const repo = await makeRepo(box.dir('repo'), { 'src/a.txt': 'a\n' });
    const link = (plugin: string) => `it comes with the @cordon/${plugin} plugin: \`cordon plugins link ${join(REPO_ROOT, 'plugins', plugin)} --no-install\``;
    const hooks = await runCordon(['install-hooks', '--agent', 'codex'], { env: box.env });
    expect(hooks.exitCode).toBe(2);
    const [line, code] = hooks.stderr.split('\n');
    expect(line).toBe(`    Error: no installed agent named "codex" takes hooks (those that do: none); ${link('codex')}`);
    expect(code).toBe('    Code: CORDON_REGISTRY_MISSING');
    // The runner registry says the same (run asks for the runner: no dialect is installed either).
    const run = await runCordon(['run', 'x', '--agent', 'gemini', '--allow', 'src/**', '--json'], { cwd: repo, env: box.env });
    expect(run.exitCode).toBe(2);
    expect(JSON.parse(run.stdout).error).toMatchObject({ code: 'CORDON_REGISTRY_MISSING', message: `no headless agent runner named "gemini" is installed (installed: none); ${link('gemini')}` });
    // A name no first-party plugin registers: the general command, and the checkout's link for first-party ones.
    const unknown = await runCordon(['install-hooks', '--agent', 'windsurf'], { env: box.env });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr.replace(/\s+/g, ' ')).toContain(`(\`cordon plugins install <name>\`; first-party ones that do: aider, claude-code, codex, cursor, gemini, hermes; this cordon runs from a checkout, which links them: \`cordon plugins link ${join(REPO_ROOT, 'plugins', '<name>')} --no-install\`)`);
    // The guard's backend, with the agent's plugin there and cgroup-linux not.
    linkPlugins(box.dataDir, ['codex']);
    const guard = await runCordon(['control', 'guard', '--agent', 'codex'], { env: box.env });
    expect(guard.exitCode).toBe(2);
    expect(guard.stderr.split('\n')[0]).toBe(`    Error: the guard is part of @cordon/cgroup-linux, which is not installed: \`cordon plugins link ${join(REPO_ROOT, 'plugins', 'cgroup-linux')} --no-install\``);
  });
});
