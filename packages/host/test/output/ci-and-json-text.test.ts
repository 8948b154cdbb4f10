import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ciInert, shownJson } from '@cordon/plugin-api';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { displayName, terminalCut, terminalLines, terminalText } from '../../src/output/terminal.js';
import { repo } from '../envelope/support.js';

// A probe found two ways agent-written text still reached a terminal or a CI log as more than
// text. (1) The GitHub Actions runner runs a log line as a workflow command when it starts with
// `::` once trimmed, and when it holds the older prefix `##[` anywhere (actions/runner,
// ActionCommand): a committed file named `::error::pwned by path` made the text verdict of
// `cordon check` print `  ::error::pwned by path (added)`. (2) `--json` output is
// JSON.stringify's, which writes U+202E, the C1 CSI U+009B and U+2028 raw: on a terminal they
// act, and `##[` inside a string is a command in a CI log too.

/** Whether a CI runner would take `line` for a workflow command. */
const isCommand = (line: string): boolean => line.trimStart().startsWith('::') || line.includes('##[');
/** Characters a terminal acts on or hides, that must not be raw in printed output. */
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

describe('text for a CI log', () => {
  it.each([
    ['::error::pwned', '\\u003a:error::pwned'],
    ['  ::add-mask::x', '  \\u003a:add-mask::x'],
    ['::stop-commands::tok', '\\u003a:stop-commands::tok'],
    ['x ##[error]legacy', 'x \\u0023#[error]legacy'],
    ['###[', '#\\u0023#['],
    ['a::b', 'a::b'],
    ['a ::error::x', 'a ::error::x'],
    [':x', ':x'],
  ])('%j is shown as %j', (text, shown) => {
    expect(ciInert(text)).toBe(shown);
    expect(terminalText(text)).toBe(shown);
    expect(isCommand(terminalText(text))).toBe(false);
  });

  it('no line of terminalLines, terminalText or displayName is a workflow command, whatever the text', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(':', '#', '[', ' ', '\t', '\n', '\r', 'e', '\u001b'), { maxLength: 24 }).map((a) => a.join('')), (text) => {
        for (const line of terminalLines(text).split('\n')) expect(isCommand(line), JSON.stringify(line)).toBe(false);
        expect(isCommand(terminalText(text))).toBe(false);
        expect(isCommand(`  ${displayName(text)} (added)`)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  // The HTML report's chart labels are cut commands (`terminalCut(command, 40)`): the cut was
  // built a character at a time, so `echo ::error::x ##[warning]…` kept its `##[` raw in the SVG.
  it('a cut text (terminalCut) is no workflow command either, and stays within its width', () => {
    expect(terminalCut('echo line1 ::error::injected ##[warning]azure and more', 40)).toBe('echo line1 ::error::injected \\u0023#[wa…');
    expect(terminalCut('::error::a long message that is cut', 12)).toBe('\\u003a:erro…');
    fc.assert(
      fc.property(fc.array(fc.constantFrom(':', '#', '[', ' ', '\t', 'e', '\u001b'), { maxLength: 24 }).map((a) => a.join('')), fc.integer({ min: 1, max: 30 }), (text, width) => {
        const cut = terminalCut(text, width);
        expect(isCommand(cut), JSON.stringify(cut)).toBe(false);
        expect(cut.length).toBeLessThanOrEqual(Math.max(width, 1));
      }),
      { numRuns: 2000 },
    );
  });

  it('quotes a name that would be a command, and leaves other names as they are', () => {
    expect(displayName('::error::pwned by path')).toBe('"::error::pwned by path"');
    expect(displayName('x ##[error]y')).toBe('"x \\u0023#[error]y"');
    expect(displayName('src/a::b.ts')).toBe('src/a::b.ts');
  });
});

describe('JSON for a terminal and a CI log', () => {
  it('reads back as JSON.stringify does, with nothing raw a terminal acts on and no ##[', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom(undefined, 2), (value, text, space) => {
        const doc = { value, text, legacy: `a ##[error]${text}` };
        const shown = shownJson(doc, space);
        expect(JSON.parse(shown)).toEqual(JSON.parse(JSON.stringify(doc)));
        expect(shown).not.toMatch(RAW);
        expect(shown).not.toContain('##[');
      }),
      { numRuns: 1000 },
    );
  });

  it('escapes the bidi override, C1 CSI and line separator JSON.stringify leaves raw', () => {
    expect(shownJson({ a: 'nope\u202e', b: '\u009b2J', c: 'x\u2028y', d: 'plain' })).toBe('{"a":"nope\\u202e","b":"\\u009b2J","c":"x\\u2028y","d":"plain"}');
  });
});

describe('cordon check and control run with such names', () => {
  let sandbox: Sandbox;
  let r: { root: string; env: NodeJS.ProcessEnv };
  beforeEach(() => {
    sandbox = makeSandbox('cordon-ci-text-');
    r = { root: repo({ 'a.txt': 'a\n' }), env: sandbox.env };
  });
  afterEach(() => sandbox.cleanup());

  it('the text verdict holds no workflow command and --json none either, for files an agent named', async () => {
    expect((await runCordon(['arm', 'names', '--allow', '**'], { cwd: r.root, env: r.env })).exitCode).toBe(0);
    writeFileSync(join(r.root, '::error::pwned by path'), 'x\n');
    writeFileSync(join(r.root, 'x ##[error]legacy'), 'y\n');
    writeFileSync(join(r.root, 'bidi\u202etxt.exe'), 'z\n');
    const text = await runCordon(['check'], { cwd: r.root, env: r.env });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toContain('"::error::pwned by path" (added)');
    expect(text.stdout).toContain('"x \\u0023#[error]legacy" (added)');
    for (const line of text.stdout.split('\n')) expect(isCommand(line), line).toBe(false);
    const json = await runCordon(['check', '--json'], { cwd: r.root, env: r.env });
    expect(json.exitCode, json.stderr).toBe(0);
    expect(json.stdout).not.toContain('##[');
    expect(json.stdout).not.toMatch(RAW);
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain('x ##[error]legacy');
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain('bidi\u202etxt.exe');
  });

  it.each([{ route: 'fast', env: {} }, { route: 'oclif', env: { CORDON_NO_FAST_ROUTE: '1' } }])('control run --json writes its record with the argument escaped ($route route)', async ({ env }) => {
    const out = await runCordon(['control', 'run', '--json', '--', 'true', 'nope\u202e', '##[error]x'], { cwd: r.root, env: { ...r.env, ...env } });
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout).not.toMatch(RAW);
    expect(out.stdout).not.toContain('##[');
    expect(JSON.parse(out.stdout).argv).toEqual(['true', 'nope\u202e', '##[error]x']);
  });
});
