import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, linkPlugins, makeSandbox, runCordon, type RunResult, type Sandbox } from '../../../../test/support/cli.js';

// oclif's own errors (a value outside a flag's or an argument's options, a missing flag or
// argument, a nonexistent flag) and those of oclif's plugins (help, autocomplete, plugins) read
// as every cordon error does, for every command, plugin commands included (hooks/finally.ts,
// cli/command-error.ts): `Error: …` and `Code: CORDON_BAD_INPUT` on stderr, exit 2, oclif's
// facts kept (the allowed values), and under --json the JSON document on stdout. Never oclif's
// raw ` ›   Error:` text, its usage dump, or its JSON of the whole command configuration.

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox('cordon-oclif-errors-');
  linkPlugins(box.dataDir, ['codex', 'aider']);
});
afterEach(() => box.cleanup());

/** Asserts `r` is cordon's text refusal with exactly `message`. */
function expectText(r: RunResult, message: string): void {
  expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({ exitCode: 2, stdout: '', stderr: `    Error: ${message}\n    Code: CORDON_BAD_INPUT\n` });
}

/** Asserts `r` is a pcodx command's refusal with exactly `message`: pcodx prints its errors as `error: …` (docs/pcodx.md). */
function expectPcodxText(r: RunResult, message: string): void {
  expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({ exitCode: 2, stdout: '', stderr: `error: ${message}\n` });
}

/** Asserts `r` is cordon's JSON refusal with exactly `message`. */
function expectJson(r: RunResult, message: string): void {
  expect(r.exitCode, r.stderr).toBe(2);
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'CORDON_BAD_INPUT', details: {}, message } });
}

/**
 * Every visible command id (`pcodx:record`) the host, the linked plugins and oclif's plugins
 * declare (oclif's hidden `autocomplete create` parses no flags at all).
 */
function commandIds(): string[] {
  const manifests = [
    join(REPO_ROOT, 'packages/host/oclif.manifest.json'),
    join(REPO_ROOT, 'plugins/codex/oclif.manifest.json'),
    join(REPO_ROOT, 'plugins/aider/oclif.manifest.json'),
    ...['plugin-help', 'plugin-plugins', 'plugin-autocomplete'].map((p) => join(REPO_ROOT, 'node_modules/@oclif', p, 'oclif.manifest.json')),
  ];
  const commands = manifests.flatMap((m) => Object.entries((JSON.parse(readFileSync(m, 'utf8')) as { commands: Record<string, { hidden?: boolean }> }).commands));
  const ids = new Set(commands.filter(([, c]) => !c.hidden).map(([id]) => id));
  return [...ids].sort();
}

describe("oclif's errors in cordon's form", () => {
  it('an argument outside its options names the argument and the allowed values (autocomplete)', async () => {
    const message = 'SHELL: expected one of zsh, bash, powershell but received: "fish"; see `cordon autocomplete --help`';
    expectText(await runCordon(['autocomplete', 'fish'], { env: box.env }), message);
    expectJson(await runCordon(['autocomplete', 'fish', '--json'], { env: box.env }), message);
  });

  it("a plugin command's flag outside its options keeps the allowed values (pcodx record --role)", async () => {
    const message = '--role: expected one of system, developer, user, assistant, tool but received: "bogus"; see `cordon pcodx record --help`';
    expectPcodxText(await runCordon(['pcodx', 'record', '--role', 'bogus', '--text', 'x'], { env: box.env }), message);
    expectJson(await runCordon(['pcodx', 'record', '--role', 'bogus', '--text', 'x', '--json'], { env: box.env }), message);
    expectPcodxText(await runCordon(['pcodx', 'record', '--text', 'x'], { env: box.env }), 'missing required flag --role; see `cordon pcodx record --help`');
    expectPcodxText(await runCordon(['pcodx', 'uncompact'], { env: box.env }), 'missing COMPACTION, an active compaction id (cmpN); see `cordon pcodx uncompact --help`');
  });

  it('help --json is a clean refusal: help prints text only', async () => {
    expectJson(await runCordon(['help', 'control', 'run', '--json'], { env: box.env }), '`cordon help` has no --json: it prints text only; see `cordon help --help`');
  });

  it("oclif's JSON-enabled plugins commands refuse in cordon's document, not oclif's dump", async () => {
    expectJson(await runCordon(['plugins', '--json', '--bogus'], { env: box.env }), 'nonexistent flag: --bogus; see `cordon plugins --help`');
    expectJson(await runCordon(['plugins', 'inspect', '--json', '--bogus'], { env: box.env }), 'nonexistent flag: --bogus; see `cordon plugins inspect --help`');
    const missing = await runCordon(['plugins', 'inspect', 'no-such-plugin', '--json'], { env: box.env });
    expect(missing.exitCode).toBe(2);
    expect(JSON.parse(missing.stdout)).toEqual({ error: { code: 'CORDON_BAD_INPUT', details: { plugin: 'no-such-plugin' }, message: 'no installed plugin is called "no-such-plugin"; `cordon plugins` lists them' } });
  });

  it("plugins inspect of a plugin not installed prints cordon's error alone, without oclif's `failed` line", async () => {
    expectText(await runCordon(['plugins', 'inspect', 'no-such-plugin'], { env: box.env }), 'no installed plugin is called "no-such-plugin"; `cordon plugins` lists them');
    // After a plugin that is installed: its tree, then the error, and still no `failed`.
    const after = await runCordon(['plugins', 'inspect', '@cordon/codex', 'no-such-plugin'], { env: box.env });
    expect(after.exitCode).toBe(2);
    expect(after.stdout).toContain('@cordon/codex');
    expect(after.stdout).not.toContain('failed');
    expect(after.stderr).toBe('    Error: no installed plugin is called "no-such-plugin"; `cordon plugins` lists them\n    Code: CORDON_BAD_INPUT\n');
  });

  it('a command run after -- that was given without it is refused with the line with the --, quoted for a shell, whatever follows its first word', async () => {
    const cwd = box.dir('cwd');
    const fix = (line: string) => `put the command to run after --, where every word is its own (cordon's flags go before the --): \`${line}\``;
    // The command's own flags, unknown to cordon.
    expectText(await runCordon(['control', 'run', 'ls', '-d', '/tmp'], { env: box.env, cwd }), fix('cordon control run -- ls -d /tmp'));
    // A flag cordon has too, after the command's first word: the command's, not cordon's (it was taken as cordon's).
    expectText(await runCordon(['control', 'run', 'touch', 'made', '--verbose'], { env: box.env, cwd }), fix('cordon control run -- touch made --verbose'));
    expectText(await runCordon(['control', 'run', 'touch', 'made', '--session', 's'], { env: box.env, cwd }), fix('cordon control run -- touch made --session s'));
    // Help flags after the first word are the command's too (cordon's help showed).
    expectText(await runCordon(['control', 'run', 'touch', 'made', '-h'], { env: box.env, cwd }), fix('cordon control run -- touch made -h'));
    // No flag at all, and a -- after the command's first word (only what followed it ran).
    expectText(await runCordon(['control', 'run', 'touch', 'made'], { env: box.env, cwd }), fix('cordon control run -- touch made'));
    expectText(await runCordon(['control', 'run', 'touch', 'made', '--', 'too'], { env: box.env, cwd }), fix('cordon control run -- touch made -- too'));
    // cordon's own flags before the command stay before the --; words that need quotes get them.
    expectText(
      await runCordon(['control', 'run', '--hint', 'memory:low', '--verbose', 'sh', '-c', "touch it's", '-x'], { env: box.env, cwd }),
      fix(`cordon control run --hint memory:low --verbose -- sh -c 'touch it'"'"'s' -x`),
    );
    // The aider plugin's wrap: the same refusal, its own --json after the command's first word included.
    expectText(await runCordon(['wrap', 'aider', '--message', 'fix it'], { env: box.env, cwd }), fix("cordon wrap -- aider --message 'fix it'"));
    expectText(await runCordon(['wrap', 'touch', 'made', '--json'], { env: box.env, cwd }), fix('cordon wrap -- touch made --json'));
    expectText(await runCordon(['wrap', '--session', 's', 'touch', 'made'], { env: box.env, cwd }), fix('cordon wrap --session s -- touch made'));
    // --json among cordon's own flags: the JSON document; after the command's first word it is the command's.
    const json = await runCordon(['control', 'run', '--json', 'ls', '-d', '/tmp'], { env: box.env, cwd });
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'CORDON_BAD_INPUT', details: { corrected: 'cordon control run --json -- ls -d /tmp' }, message: fix('cordon control run --json -- ls -d /tmp') } });
    const wrapJson = await runCordon(['wrap', '--json', 'touch', 'made'], { env: box.env, cwd });
    expect(wrapJson.exitCode).toBe(2);
    expect(JSON.parse(wrapJson.stdout).error.details).toEqual({ corrected: 'cordon wrap --json -- touch made' });
    // Text a terminal would act on is shown escaped.
    expectText(await runCordon(['control', 'run', '\u001b[31mred', '--verbose'], { env: box.env, cwd }), fix("cordon control run -- '\\u001b[31mred' --verbose"));
    // An unknown flag before any command word is a mistyped cordon flag: no correction is guessed.
    expectText(await runCordon(['control', 'run', '--bogus', 'ls', '-d'], { env: box.env, cwd }), 'nonexistent flags: --bogus, -d; see `cordon control run --help`');
    // Nothing ran.
    expect(readdirSync(cwd)).toEqual([]);
    // With the --, cordon's flags before it and the command's after it (the fast route and oclif's).
    for (const env of [box.env, { ...box.env, CORDON_NO_FAST_ROUTE: '1' }]) {
      const ran = await runCordon(['control', 'run', '--verbose', '--', 'touch', 'made', '--no-create'], { env, cwd });
      expect(ran.exitCode, ran.stderr).toBe(0);
      expect(ran.stderr).toContain('[cordon]');
    }
    expect(readdirSync(cwd)).toEqual([]);
    const made = await runCordon(['control', 'run', '--', 'touch', 'made'], { env: box.env, cwd });
    expect(made.exitCode, made.stderr).toBe(0);
    expect(readdirSync(cwd)).toEqual(['made']);
  });

  it('a mistyped flag is answered with the flag it most likely meant, on every kind of command', async () => {
    const cwd = box.dir('cwd');
    // cordon's own command (the text and the JSON form, the suggestion also in details).
    expectText(await runCordon(['reduce', '--sesion', 'x'], { env: box.env, cwd }), 'nonexistent flag: --sesion (did you mean --session?); see `cordon reduce --help`');
    const json = await runCordon(['reduce', '--sesion=x', '--json'], { env: box.env, cwd });
    expect(json.exitCode, json.stderr).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'CORDON_BAD_INPUT', details: { suggestions: { '--sesion=x': '--session' } }, message: 'nonexistent flag: --sesion=x (did you mean --session?); see `cordon reduce --help`' },
    });
    // Two neighbouring letters swapped; several unknown flags, only the mistyped long one guessed.
    expectText(await runCordon(['status', '--rpeo', cwd], { env: box.env, cwd }), 'nonexistent flag: --rpeo (did you mean --repo?); see `cordon status --help`');
    expectText(await runCordon(['check', '--jsno', '--bogus-flag-here', '-y'], { env: box.env, cwd }), 'nonexistent flags: --jsno (did you mean --json?), --bogus-flag-here, -y; see `cordon check --help`');
    // A command that runs another after --: a mistyped flag of its own before the --.
    expectText(await runCordon(['control', 'run', '--verbos', '--', 'true'], { env: box.env, cwd }), 'nonexistent flag: --verbos (did you mean --verbose?); see `cordon control run --help`');
    // Plugin commands, and oclif's own commands.
    expectPcodxText(await runCordon(['pcodx', 'show', '--sesion', 'x'], { env: box.env, cwd }), 'nonexistent flag: --sesion (did you mean --session?); see `cordon pcodx show --help`');
    const wrap = await runCordon(['wrap', '--shell-shin', '--json', '--', 'true'], { env: box.env, cwd });
    expect(wrap.exitCode, wrap.stderr).toBe(2);
    expect(JSON.parse(wrap.stdout).error).toEqual({ code: 'CORDON_BAD_INPUT', details: { suggestions: { '--shell-shin': '--shell-shim' } }, message: 'nonexistent flag: --shell-shin (did you mean --shell-shim?); see `cordon wrap --help`' });
    expectText(await runCordon(['plugins', 'link', '--no-instal', cwd], { env: box.env, cwd }), 'nonexistent flag: --no-instal (did you mean --no-install?); see `cordon plugins link --help`');
    expectText(await runCordon(['help', '--nested'], { env: box.env, cwd }), 'nonexistent flag: --nested (did you mean --nested-commands?); see `cordon help --help`');
    expectText(await runCordon(['autocomplete', '--refresh'], { env: box.env, cwd }), 'nonexistent flag: --refresh (did you mean --refresh-cache?); see `cordon autocomplete --help`');
    // Nothing ran.
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('every command refuses a nonexistent flag the same way', async () => {
    const ids = commandIds();
    expect(ids).toEqual(expect.arrayContaining(['autocomplete', 'help', 'plugins:uninstall', 'pcodx:show', 'wrap', 'check', 'control:run']));
    // The hook never fails an agent: it exits 0 and prints nothing whatever its arguments. `pcodx`
    // alone reads the reference pcodx's `pcodx [global flags] <command>` form; pcodx's commands
    // answer in pcodx's words (`error: …`, exit 2: docs/pcodx.md), the same message.
    for (const id of ids.filter((i) => i !== 'hook' && i !== 'pcodx')) {
      const command = id.split(':');
      const r = await runCordon([...command, '--no-such-flag'], { env: box.env, cwd: box.root });
      const message = `nonexistent flag: --no-such-flag; see \`cordon ${command.join(' ')} --help\``;
      const stderr = command[0] === 'pcodx' ? `error: ${message}\n` : `    Error: ${message}\n    Code: CORDON_BAD_INPUT\n`;
      expect({ id, exitCode: r.exitCode, stderr: r.stderr }).toEqual({ id, exitCode: 2, stderr });
    }
    expect(readdirSync(box.root).sort()).toEqual(['cache', 'config', 'data', 'home']);
  });
});
