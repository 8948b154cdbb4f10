import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo } from '../../../../test/support/git.js';
import { unknownFlagSuggestions } from '../../src/cli/flag-suggestion.js';
import { usageMessage } from '../../src/cli/usage-message.js';

// oclif's parse errors as its parser words them (@oclif/core 4 lib/parser/errors.js, parse.js),
// in the one-line form cordon prints; the real commands are driven in test/envelope/cli.test.ts.

const said = (message: string, args?: unknown) => usageMessage(Object.assign(new Error(message), args === undefined ? {} : { args }), 'cordon arm');

describe('usageMessage', () => {
  it('puts each kind of parse error on one line, naming the flag first', () => {
    expect(said('Parsing --max-files \n\tExpected an integer but received: abc\nSee more help with --help')).toBe('--max-files: expected an integer but received: abc; see `cordon arm --help`');
    expect(said('Expected --format=a b to be one of: text, github\nSee more help with --help')).toBe('--format: expected one of text, github but received: "a b"; see `cordon arm --help`');
    expect(said('Flag --max-files expects a value')).toBe('--max-files: expects a value; see `cordon arm --help`');
    expect(said('Nonexistent flags: --a, --b\nSee more help with --help')).toBe('nonexistent flags: --a, --b; see `cordon arm --help`');
    expect(said('Unexpected argument: y\nSee more help with --help')).toBe('unexpected argument: y; see `cordon arm --help`');
    expect(said('Expected x to be one of: a, b\nSee more help with --help')).toBe('expected one of a, b but received: "x"; see `cordon arm --help`');
  });

  it('names the argument whose options refused a value, from the command\'s argument specs', () => {
    const error = new Error('Expected fish to be one of: zsh, bash, powershell\nSee more help with --help');
    expect(usageMessage(error, 'cordon autocomplete', { shell: { options: ['zsh', 'bash', 'powershell'] } })).toBe('SHELL: expected one of zsh, bash, powershell but received: "fish"; see `cordon autocomplete --help`');
  });

  it('says a command without --json prints text only', () => {
    expect(usageMessage(new Error('Nonexistent flag: --json\nSee more help with --help'), 'cordon help')).toBe('`cordon help` has no --json: it prints text only; see `cordon help --help`');
  });

  it('keeps a flag check that names its flag itself (a directory flag) as it is', () => {
    expect(said('Parsing --repo \n\t--repo "/x": no such directory\nSee more help with --help')).toBe('--repo "/x": no such directory; see `cordon arm --help`');
  });

  it('lists every failed validation, colour codes left out, a missing flag with its dashes', () => {
    const failed = 'The following errors occurred:\n  \u001b[2mMissing required flag agent\n  --head=x cannot also be provided when using --base\u001b[22m\nSee more help with --help';
    expect(said(failed)).toBe('missing required flag --agent; --head and --base cannot be used together; see `cordon arm --help`');
  });

  it('names a missing argument with its description, without oclif\'s note on multi-value flags', () => {
    const message = 'Missing 1 required arg:\nlabel  What it is for\n\nNote: --allow allows multiple values.\nSee more help with --help';
    expect(said(message, [{ name: 'label', description: 'What it is for' }])).toBe('missing LABEL, what it is for; see `cordon arm --help`');
    // The description as a clause: no full stop, an abbreviation kept as written.
    expect(said(message, [{ name: 'label', description: 'What it is for.' }])).toBe('missing LABEL, what it is for; see `cordon arm --help`');
    expect(said(message, [{ name: 'url', description: 'URL of the server' }])).toBe('missing URL, URL of the server; see `cordon arm --help`');
  });

  it('adds the flag a mistyped one most likely meant, among the visible flags and their --no- forms', () => {
    const flags = { session: { type: 'option' }, since: { type: 'option' }, secret: { type: 'option', hidden: true }, install: { type: 'boolean', allowNo: true } };
    /** oclif's NonExistentFlagsError for `typed`, with the command's flag specs. */
    const refusal = (...typed: string[]) => Object.assign(new Error(`Nonexistent flag${typed.length === 1 ? '' : 's'}: ${typed.join(', ')}\nSee more help with --help`), { flags: typed, parse: { input: { flags } } });
    expect(usageMessage(refusal('--sesion'), 'cordon reduce')).toBe('nonexistent flag: --sesion (did you mean --session?); see `cordon reduce --help`');
    expect(usageMessage(refusal('--no-instal', '-x', '--zzzzzz'), 'cordon reduce')).toBe('nonexistent flags: --no-instal (did you mean --no-install?), -x, --zzzzzz; see `cordon reduce --help`');
    expect(unknownFlagSuggestions(refusal('--sesion=x', '--secrte', '-s', '--'))).toEqual({ '--sesion=x': '--session' });
    // No guess: oclif's words stand.
    expect(usageMessage(refusal('--zzzzzz'), 'cordon reduce')).toBe('nonexistent flag: --zzzzzz; see `cordon reduce --help`');
    expect(unknownFlagSuggestions(new Error('Nonexistent flag: --sesion'))).toEqual({});
  });

  it('leaves a command\'s own error (no parse error) as it is', () => {
    expect(said('give the command to run after --, e.g. `cordon wrap -- aider`')).toBe('give the command to run after --, e.g. `cordon wrap -- aider`');
  });

  it("keeps every control sequence but oclif's own colour: a path's escape is the error printer's to escape, not to delete", () => {
    expect(said('nothing is armed in /tmp/re\u001b[7mpo (run `cordon arm` first)')).toBe('nothing is armed in /tmp/re\u001b[7mpo (run `cordon arm` first)');
    expect(said('Parsing --repo \n\t--repo "/x\u001b[2my": no such directory\nSee more help with --help')).toBe('--repo "/x\u001b[2my": no such directory; see `cordon arm --help`');
  });
});

describe('unexpected arguments, through the built CLI', () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = makeSandbox('cordon-unexpected-args-');
  });
  afterEach(() => sandbox.cleanup());

  // Found by a fresh user: `cordon arm fix the parser …` and an unquoted `--allow src/**` the
  // shell expanded were refused with only the stray words listed.
  it('says why: words of one argument need quotes, a glob the shell expanded needs quoting', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.py': 'a\n', 'src/b.py': 'b\n' }, sandbox.env);
    const label = await runCordon(['arm', 'fix', 'the', 'parser', '--allow', 'src/**'], { env: sandbox.env, cwd: repo });
    expect(label.exitCode).toBe(2);
    expect(label.stderr).toContain('unexpected arguments: the, parser (words meant as one LABEL need quotes: cordon arm "fix the parser"); see `cordon arm --help`');
    for (const command of [['arm', 't'], ['check', '--base', 'HEAD']]) {
      const glob = await runCordon([...command, '--allow', 'src/a.py', 'src/b.py'], { env: sandbox.env, cwd: repo });
      expect(glob.exitCode).toBe(2);
      expect(glob.stderr).toContain(`unexpected argument: src/b.py (a glob the shell expanded? quote it, e.g. --allow 'src/**'); see \`cordon ${command[0]} --help\``);
    }
  });

  // Found by a fresh user: `cordon arm --allow src/** fix`, expanded by bash, was told to quote
  // the paths as one LABEL; with the label first it got the glob hint.
  it('a glob the shell expanded before the label gets the glob hint too, not the quotes one', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.mjs': 'a\n', 'src/b.mjs': 'b\n', 'src/c.mjs': 'c\n', 'src/secrets/key': 'k\n' }, sandbox.env);
    const expanded = ['src/a.mjs', 'src/b.mjs', 'src/c.mjs', 'src/secrets'];
    const hint = "(a glob the shell expanded? quote it, e.g. --allow 'src/**'); see `cordon arm --help`";
    for (const [argv, extra] of [
      [['arm', '--allow', ...expanded, 'fix'], 'src/c.mjs, src/secrets, fix'],
      [['arm', '--repo', '.', '--allow', ...expanded, 'fix'], 'src/c.mjs, src/secrets, fix'],
      [['arm', 'fix', '--allow', ...expanded], 'src/b.mjs, src/c.mjs, src/secrets'],
    ] as const) {
      const r = await runCordon([...argv], { env: sandbox.env, cwd: repo });
      expect([argv.join(' '), r.exitCode, r.stderr.split('\n')[0]]).toEqual([argv.join(' '), 2, `    Error: unexpected arguments: ${extra} ${hint}`]);
    }
    // Words that are no paths stay a LABEL needing quotes, wherever --allow is.
    const words = await runCordon(['arm', '--allow', 'src/a.mjs', 'fix', 'the', 'parser'], { env: sandbox.env, cwd: repo });
    expect(words.stderr.split('\n')[0]).toBe('    Error: unexpected arguments: the, parser (words meant as one LABEL need quotes: cordon arm "fix the parser"); see `cordon arm --help`');
  });
});

describe('exclusive flags, through the built CLI', () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = makeSandbox('cordon-exclusive-flags-');
  });
  afterEach(() => sandbox.cleanup());

  // Found by a fresh user: `cordon reduce --all --session s1` printed oclif's pair of lines
  // (`--all=true cannot also be provided when using --session; --session=s1 cannot …`).
  it('says the two flags once, each with what it does', async () => {
    const reduce = await runCordon(['reduce', '--all', '--session', 's1'], { env: sandbox.env });
    expect(reduce.exitCode).toBe(2);
    expect(reduce.stderr).toContain('--all and --session cannot be used together: --all: reduce every recorded session; --session: reduce this session; see `cordon reduce --help`');
    expect(reduce.stderr).not.toContain('cannot also be provided');
    const hooks = await runCordon(['install-hooks', '--all', '--agent', 'codex'], { env: sandbox.env });
    expect(hooks.exitCode).toBe(2);
    expect(hooks.stderr).toMatch(/--(all and --agent|agent and --all) cannot be used together: --/);
  });

  // Found by a fresh user: `cordon analyze --session s1 --all` ignored --all without a word.
  it('analyze refuses two selectors of its batch together, naming both', async () => {
    for (const [argv, pair] of [
      [['analyze', '--session', 's1', '--all'], /--(session and --all|all and --session) cannot be used together: --/],
      [['analyze', '--compare', 'all', 'agent:codex', '--session', 's1'], /--(compare and --session|session and --compare) cannot be used together: --/],
      [['analyze', '--compare', 'all', 'agent:codex', '--agent', 'codex'], /--(compare and --agent|agent and --compare) cannot be used together: --/],
      [['analyze', '--since', '2026-11-01', '--compare', 'all', 'agent:codex'], /--(compare and --since|since and --compare) cannot be used together: --/],
    ] as const) {
      const r = await runCordon([...argv], { env: sandbox.env });
      expect([argv.join(' '), r.exitCode]).toEqual([argv.join(' '), 2]);
      expect(r.stderr.split('\n')[0]).toMatch(pair);
      expect(r.stderr).toContain('; see `cordon analyze --help`');
    }
  });
});

describe('a --format that is a flag of its own, through the built CLI', () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = makeSandbox('cordon-format-json-');
  });
  afterEach(() => sandbox.cleanup());

  // Found by a fresh user: `cordon check --format json` was refused with the formats only.
  it('names --json for --format json on every command that takes --json', async () => {
    const r = await runCordon(['check', '--format', 'json'], { env: sandbox.env });
    expect([r.exitCode, r.stderr]).toEqual([2, '    Error: --format: expected one of text, github, sarif, junit but received: "json" (did you mean --json?); see `cordon check --help`\n    Code: CORDON_BAD_INPUT\n']);
    const json = await runCordon(['check', '--format=json', '--json'], { env: sandbox.env });
    expect([json.exitCode, JSON.parse(json.stdout).error.message]).toEqual([2, '--format: expected one of text, github, sarif, junit but received: "json" (did you mean --json?); see `cordon check --help`']);
    // Another refused value, or another flag's, names no flag.
    const other = await runCordon(['check', '--format', 'sarf'], { env: sandbox.env });
    expect(other.stderr).toContain('received: "sarf"; see');
    const sort = await runCordon(['top', '--sort', 'json'], { env: sandbox.env });
    expect([sort.exitCode, sort.stderr.split('\n')[0]]).toEqual([2, '    Error: --sort: expected one of cpu, mem, time, call, cwd but received: "json"; see `cordon top --help`']);
  });
});
