import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cmdArgument, cmdCommand, cmdProgram, msvcArgument } from '../../src/install-hooks/quote/cmd.js';
import { posixCommand, posixQuote } from '../../src/install-hooks/quote/posix.js';
import { powershellArgument, powershellCommand, powershellQuote } from '../../src/install-hooks/quote/powershell.js';
import { commandFromArgv } from '../../src/install-hooks/command.js';

// The quoting modules of install-hooks, one per shell. POSIX quoting is checked by real parsers
// (/bin/sh and Python's shlex.split, which Hermes uses); cmd.exe quoting by the Wine suite
// (wine-cmd.test.ts: Wine's cmd.exe and the Windows node.exe). No PowerShell runs on this machine,
// so the PowerShell form is checked against fixed expectations and a parser written from
// about_Quoting_Rules, which proves the rules are applied consistently, not that PowerShell agrees.

/** Characters that break quoting: shell metacharacters of all three shells, quotes of every kind, Windows path text. */
const NASTY = [...` \t'"\`$\\%^&|<>()!;,=*?[]{}~#@+:/-._`, '\u2018', '\u2019', '\u201A', '\u201B', '\u201C', '\u201D', 'é', '日', 'a', 'Z', '0', 'C:', 'O\'Neil'];
const nastyString = fc.array(fc.constantFrom(...NASTY), { maxLength: 12 }).map((parts) => parts.join(''));
const argvOf = (min = 1) => fc.array(nastyString, { minLength: min, maxLength: 6 });

/** Windows paths of the kind npm installs under. */
const ANN = "C:\\Users\\Ann O'Neil\\AppData\\Roaming\\npm\\node_modules\\@cordon\\host\\bin\\run.cjs";
const NODE_SPACES = 'C:\\Program Files (x86)\\nodejs & co\\100%^\\node.exe';

describe('POSIX quoting (sh, bash, Git Bash, Python shlex)', () => {
  it('round-trips any argv through /bin/sh', () => {
    fc.assert(
      fc.property(argvOf(), (argv) => {
        const r = spawnSync('/bin/sh', ['-c', `printf '%s\\0' ${posixCommand(argv)}`], { encoding: 'utf8' });
        expect(r.status, r.stderr).toBe(0);
        expect(r.stdout.split('\0').slice(0, -1)).toEqual(argv);
      }),
      { numRuns: 150 },
    );
  });

  it("round-trips any argv through Python's shlex.split (how Hermes reads its hook commands, also on Windows)", (ctx) => {
    if (spawnSync('python3', ['-c', '0']).status !== 0) {
      console.log('python3 is not installed: the shlex.split check is skipped');
      ctx.skip();
    }
    const samples = fc.sample(argvOf(), { numRuns: 150, seed: 20261130 });
    samples.push(["C:\\Program Files\\nodejs\\node.exe", ANN, 'hook', '--agent', 'hermes']);
    const script = 'import json,shlex,sys\nfor line in sys.stdin.read().split("\\0")[:-1]: print(json.dumps(shlex.split(line)))';
    const r = spawnSync('python3', ['-c', script], { input: samples.map((a) => posixCommand(a) + '\0').join(''), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const parsed = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as string[]);
    expect(parsed).toEqual(samples);
  });

  it('leaves safe words bare and keeps the output of earlier installs', () => {
    expect(posixQuote('/usr/bin/node')).toBe('/usr/bin/node');
    expect(posixQuote('')).toBe("''");
    expect(posixCommand(['/opt/my node/node', '/x/bin/run.cjs', 'hook', '--agent', 'codex'])).toBe("'/opt/my node/node' /x/bin/run.cjs hook --agent codex");
    expect(posixQuote("Ann O'Neil")).toBe(`'Ann O'"'"'Neil'`);
  });
});

/**
 * A parser of the PowerShell text {@link powershellCommand} writes, from about_Quoting_Rules and
 * about_Operators: an optional call operator `&`, then words separated by spaces, each either a
 * single-quoted string (any of ' U+2018 U+2019 U+201A U+201B opens and closes it; two in a row
 * are one literal quote) or a bare word (no quote, space or PowerShell metacharacter in it).
 */
function parsePowerShell(text: string): string[] {
  const quote = /['\u2018\u2019\u201A\u201B]/;
  let i = 0;
  const out: string[] = [];
  if (text.startsWith('& ')) i = 2;
  while (i < text.length) {
    if (text[i] === ' ') {
      i++;
      continue;
    }
    if (quote.test(text[i]!)) {
      let word = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new Error(`unterminated string in ${text}`);
        if (quote.test(text[i]!)) {
          if (i + 1 < text.length && quote.test(text[i + 1]!)) {
            word += text[i];
            i += 2;
            continue;
          }
          i++;
          break;
        }
        word += text[i++];
      }
      if (i < text.length && text[i] !== ' ') throw new Error(`text after a closing quote in ${text}`);
      out.push(word);
    } else {
      const end = text.indexOf(' ', i);
      const word = text.slice(i, end === -1 ? undefined : end);
      if (/['\u2018\u2019\u201A\u201B"`$@(){};,&|<>#]/.test(word) || word === '--%' || /^[0-9]/.test(word)) throw new Error(`bare word PowerShell would not pass as it is: ${word}`);
      out.push(word);
      i = end === -1 ? text.length : end;
    }
  }
  return out;
}

const powershellSafe = nastyString.filter((s) => !/["\r\n\0]|\\$/.test(s));

describe('PowerShell quoting', () => {
  it('writes the npm paths of a user named O\'Neil as a call of node.exe with single-quoted paths', () => {
    expect(powershellCommand([NODE_SPACES, ANN, 'hook', '--agent', 'codex'])).toBe(
      "& 'C:\\Program Files (x86)\\nodejs & co\\100%^\\node.exe' 'C:\\Users\\Ann O''Neil\\AppData\\Roaming\\npm\\node_modules\\@cordon\\host\\bin\\run.cjs' hook --agent codex",
    );
  });

  it('writes plain paths bare, so cmd.exe reads the same line the same way', () => {
    expect(powershellCommand(['C:\\nodejs\\node.exe', 'C:\\Users\\ann\\AppData\\Roaming\\npm\\node_modules\\cordon\\bin\\run.cjs', 'hook', '--agent', 'gemini'])).toBe(
      'C:\\nodejs\\node.exe C:\\Users\\ann\\AppData\\Roaming\\npm\\node_modules\\cordon\\bin\\run.cjs hook --agent gemini',
    );
  });

  it('doubles every kind of single quote and nothing else', () => {
    expect(powershellQuote("it's")).toBe("'it''s'");
    expect(powershellQuote('it\u2019s')).toBe("'it\u2019\u2019s'");
    expect(powershellQuote('$env:HOME `n "x" %PATH% ^&()')).toBe('\'$env:HOME `n "x" %PATH% ^&()\'');
    expect(powershellArgument('--agent')).toBe('--agent');
    expect(powershellArgument('--%')).toBe("'--%'");
    expect(powershellArgument('@args')).toBe("'@args'");
    expect(powershellArgument('a,b')).toBe("'a,b'");
    expect(powershellArgument('1e3')).toBe("'1e3'");
    expect(powershellArgument('0x10')).toBe("'0x10'");
  });

  it('gives back any argv it accepts, by the quoting rules', () => {
    fc.assert(
      fc.property(fc.array(powershellSafe, { minLength: 1, maxLength: 6 }), (argv) => {
        expect(parsePowerShell(powershellCommand(argv))).toEqual(argv);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses what Windows PowerShell 5.1 would not pass on intact, naming it', () => {
    for (const bad of ['say "hi"', 'C:\\dir\\', 'a\nb', 'a\0b']) {
      expect(() => powershellCommand(['C:\\x\\node.exe', bad]), bad).toThrow(expect.objectContaining({ code: 'CORDON_BAD_INPUT', message: expect.stringContaining(JSON.stringify(bad)) }));
    }
    expect(() => powershellCommand([])).toThrow(expect.objectContaining({ code: 'CORDON_BAD_INPUT' }));
  });
});

/**
 * The Microsoft C runtime's argument parser (docs: "Parsing C command-line arguments") for the
 * arguments after the program name: the model msvcQuote is written against. The Wine suite
 * checks the same quoting with the real node.exe.
 */
function parseMsvc(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (i >= line.length) break;
    let word = '';
    let quoted = false;
    while (i < line.length && (quoted || (line[i] !== ' ' && line[i] !== '\t'))) {
      let slashes = 0;
      while (line[i] === '\\') {
        slashes++;
        i++;
      }
      if (line[i] === '"') {
        word += '\\'.repeat(Math.floor(slashes / 2));
        if (slashes % 2 === 1) word += '"';
        else if (quoted && line[i + 1] === '"') {
          word += '"';
          i++;
        } else quoted = !quoted;
        i++;
      } else {
        word += '\\'.repeat(slashes);
        if (i < line.length && (quoted || (line[i] !== ' ' && line[i] !== '\t'))) word += line[i++];
      }
    }
    out.push(word);
  }
  return out;
}

describe('cmd.exe quoting', () => {
  it('writes for the C runtime: whitespace runs quoted, backslashes doubled only before a quote, a quote after every %', () => {
    expect(msvcArgument('C:\\Program Files\\x\\')).toBe('C:\\Program" "Files\\x\\');
    expect(msvcArgument('a\\"b')).toBe('a\\\\\\"b');
    expect(msvcArgument('C:\\plain\\path')).toBe('C:\\plain\\path');
    expect(msvcArgument('x\\ y')).toBe('x\\\\" "y');
    expect(msvcArgument('')).toBe('""');
    expect(msvcArgument('%PATH%')).toBe('%""PATH%""');
    expect(msvcArgument('50% off')).toBe('50%" "off');
  });

  it('C runtime writing gives back any argument list', () => {
    fc.assert(
      fc.property(argvOf(), (argv) => {
        expect(parseMsvc(argv.map(msvcArgument).join(' '))).toEqual(argv);
      }),
      { numRuns: 1000 },
    );
  });

  it('puts a quote in the name of every %…% pair, and a caret before every cmd.exe metacharacter of an argument', () => {
    expect(cmdArgument(ANN)).toBe(`C:\\Users\\Ann^" ^"O'Neil\\AppData\\Roaming\\npm\\node_modules\\@cordon\\host\\bin\\run.cjs`);
    expect(cmdArgument('50%&(x)^!')).toBe('50^%^"^"^&^(x^)^^^!');
    expect(cmdArgument('hook')).toBe('hook');
    fc.assert(
      fc.property(nastyString, (arg) => {
        const line = cmdArgument(arg).replace(/\^(.)/g, '$1');
        // Between any two % (whatever pair cmd.exe tries) there is a quote.
        for (const name of line.split('%').slice(1, -1)) expect(name, line).toContain('"');
      }),
      { numRuns: 500 },
    );
  });

  it('writes the program in real quotes, each % followed by ""', () => {
    expect(cmdProgram(NODE_SPACES)).toBe('"C:\\Program Files (x86)\\nodejs & co\\100%""^\\node.exe"');
    expect(cmdCommand([NODE_SPACES, ANN, 'hook', '--agent', 'codex'])).toBe(`${cmdProgram(NODE_SPACES)} ${cmdArgument(ANN)} hook --agent codex`);
    expect(() => cmdProgram('C:\\a"b')).toThrow(expect.objectContaining({ code: 'CORDON_BAD_INPUT' }));
    expect(() => cmdCommand(['C:\\x.exe', 'a\r\nb'])).toThrow(expect.objectContaining({ code: 'CORDON_BAD_INPUT' }));
  });
});

describe('hook command forms', () => {
  it('on win32: all three forms of the same argv', () => {
    const argv = [NODE_SPACES, ANN, 'hook', '--agent', 'codex'];
    const c = commandFromArgv(argv, false, 'win32');
    expect(c).toMatchObject({ platform: 'win32', shell: posixCommand(argv), powershell: powershellCommand(argv), cmd: cmdCommand(argv), hasSpaces: true, fromFlag: false });
  });

  it('elsewhere: the POSIX form only (a Unix path PowerShell could not carry does not stop an install)', () => {
    const argv = ['/opt/node "x"/bin/node', '/x/run.cjs', 'hook', '--agent', 'codex'];
    const c = commandFromArgv(argv, false, 'linux');
    expect([c.shell, c.powershell, c.cmd]).toEqual([posixCommand(argv), posixCommand(argv), posixCommand(argv)]);
    expect(() => commandFromArgv(argv, false, 'win32')).toThrow(expect.objectContaining({ code: 'CORDON_BAD_INPUT' }));
  });
});
