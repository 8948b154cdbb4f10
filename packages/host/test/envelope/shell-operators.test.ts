import { describe, expect, it } from 'vitest';
import { shellOperatorVerifiers, shellOperatorWarning } from '../../src/envelope/verify/shell-operators.js';
import { splitCommand } from '../../src/envelope/verify/spec.js';

// A verifier is split like a shell would split it, never run by one (src/envelope/verify/spec.ts):
// a shell operator in it reaches the program as an argument, which arm warns of.

describe('shellOperatorVerifiers', () => {
  it('finds list and pipeline operators and output redirections, as words of their own', () => {
    const found = shellOperatorVerifiers(['npm run build && npm test', 'make || true', 'a | b', 'a |& b', 'sleep 1 &', 'x > out', 'x >> out', 'x 2> err', 'x 2>&1', 'x >&2', 'x &> all', 'x >out.txt', 'x 2>/dev/null']);
    expect(found.map((f) => f.operator)).toEqual(['&&', '||', '|', '|&', '&', '>', '>>', '2>', '2>&1', '>&2', '&>', '>out.txt', '2>/dev/null']);
    expect(found[0]).toEqual({ command: 'npm run build && npm test', program: 'npm', kind: 'operator', operator: '&&' });
  });

  it('leaves alone what a shell runs, quoted or escaped operators inside words, the `;` ending a find action, and input forms', () => {
    const none = ["sh -c 'npm run build && npm test'", 'bash -lc "a | b"', "grep -E 'a|b' f", 'find . -name x -exec rm {} ;', "grep -q '<title>' index.html", 'node -e "1 > 0"', 'find . -exec rm {} \\;', 'echo a\\;b', 'npm test', "'unbalanced", "grep -q 'a$' f", 'bash -lc "test -d $HOME"', 'git diff HEAD~1', 'echo \\$HOME', 'printf a$ b', "sh -c 'echo ~'"];
    expect(shellOperatorVerifiers(none)).toEqual([]);
  });

  it('finds an operator a shell reads where it is not a word of its own: `;` alone or glued, `a&&b`, `x>f`, `>&2;`', () => {
    // The walkthrough's examples: each passed silently and `check` accepted (echo prints the rest, exits 0).
    const found = shellOperatorVerifiers(['echo out; false', 'true ; false', 'echo a >&2; exit 4', 'echo x>f', 'echo a&&b', 'curl http://h/?a=1&b=2', 'make|tee log', 'find . -exec rm {} ; -print ; false']);
    expect(found.map((f) => [f.kind, f.operator])).toEqual([
      ['operator', ';'],
      ['operator', ';'],
      ['operator', '>&2'],
      ['operator', '>'],
      ['operator', '&&'],
      ['operator', '&'],
      ['operator', '|'],
      ['operator', ';'],
    ]);
    expect(shellOperatorWarning(found[0]!)).toBe("warning: verifier `echo out; false` passes `;` to `echo` as an argument: verifiers run without a shell, so it means nothing there; to have a shell run it, write `sh -c 'echo out; false'`");
  });

  it('the warning names the command, the operator and the program, and escapes them for a terminal', () => {
    const [found] = shellOperatorVerifiers(['printf "\x1b[31m" && true']);
    const line = shellOperatorWarning(found!);
    expect(line).not.toMatch(/\x1b/);
    expect(line).toMatch(/^warning: verifier `printf .*` passes `&&` to `printf` as an argument/);
    // A command holding a single quote cannot be wrapped as is: the advice says how instead.
    expect(shellOperatorWarning(shellOperatorVerifiers(["echo 'x' && true"])[0]!)).toMatch(/wrap the command in `sh -c`$/);
  });

  it('finds an unquoted expansion a shell would make ($VAR, ${VAR}, $(…), backquotes, ~), in the program too', () => {
    const found = shellOperatorVerifiers(['$HOME/bin/lint', 'test -f ${XDG_CONFIG_HOME}/x', 'npm test -- $ARGS', 'make -C $(pwd)', 'echo `date`', '~/bin/check', 'awk {print $1} f', 'ls ~alice']);
    expect(found.map((f) => [f.kind, f.operator])).toEqual([
      ['expansion', '$HOME'],
      ['expansion', '${XDG_CONFIG_HOME}'],
      ['expansion', '$ARGS'],
      ['expansion', '$(…)'],
      ['expansion', '`…`'],
      ['expansion', '~'],
      ['expansion', '$1'],
      ['expansion', '~alice'],
    ]);
    expect(shellOperatorWarning(found[0]!)).toBe(
      "warning: verifier `$HOME/bin/lint` holds `$HOME`, which only a shell expands: verifiers run without a shell, so the program is looked up under the name `$HOME/bin/lint` as written; write the value out, or to have a shell run it, write `sh -c '$HOME/bin/lint'`",
    );
    // An operator is the stronger word: one warning per verifier.
    expect(shellOperatorVerifiers(['make $X && true']).map((f) => f.kind)).toEqual(['operator']);
  });

  it('words an expansion by where it stands: the program is looked up under that name, an argument gets the text', () => {
    const [asArgument, asProgram] = shellOperatorVerifiers(['echo $HOME', '$CMD arg']);
    expect(shellOperatorWarning(asArgument!)).toBe(
      "warning: verifier `echo $HOME` holds `$HOME`, which only a shell expands: verifiers run without a shell, so `echo` gets the text `$HOME` literally, not its value; write the value out, or to have a shell run it, write `sh -c 'echo $HOME'`",
    );
    expect(shellOperatorWarning(asArgument!)).not.toContain('looked up');
    expect(shellOperatorWarning(asProgram!)).toContain('so the program is looked up under the name `$CMD` as written;');
    expect(shellOperatorWarning(shellOperatorVerifiers(['ls ~alice'])[0]!)).toContain('`ls` gets the text `~alice` literally');
  });

  it('inside double quotes a shell expands too, so those warn; single-quoted ones are literal in a shell as well and do not', () => {
    const found = shellOperatorVerifiers(['node -p process.argv.slice(1) "$HOME" x', 'test -f "${X}/y"', 'make -C "$(pwd)"', 'echo "`date`"', 'echo "a b $1"', '"$CMD" arg']);
    expect(found.map((f) => [f.operator, f.doubleQuoted, f.inProgram])).toEqual([
      ['$HOME', true, false],
      ['${X}', true, false],
      ['$(…)', true, false],
      ['`…`', true, false],
      ['$1', true, false],
      ['$CMD', true, true],
    ]);
    expect(shellOperatorWarning(found[0]!)).toBe(
      "warning: verifier `node -p process.argv.slice(1) \"$HOME\" x` holds `$HOME`, which only a shell expands, even inside double quotes: verifiers run without a shell, so `node` gets the text `$HOME` literally, not its value; write the value out, or to have a shell run it, write `sh -c 'node -p process.argv.slice(1) \"$HOME\" x'`",
    );
    // Literal in a shell too: single quotes, a backslash, a tilde inside double quotes, `$` with no name.
    expect(shellOperatorVerifiers(["echo '$HOME'", "echo '\"$HOME\"'", 'echo \\$HOME', 'ls "~/x"', 'echo "cost: 5$"', 'grep -q "a$"'])).toEqual([]);
  });

  it('a shell the verifier runs with -c expands its double-quoted script itself: no warning there', () => {
    expect(shellOperatorVerifiers(['sh -c "echo $HOME"', 'bash -lc "test -d ${HOME}"', '/bin/dash -ec "make -C $(pwd)"'])).toEqual([]);
    // Unquoted, the expansion is a word of its own for the shell, not part of its script: still a warning.
    expect(shellOperatorVerifiers(['sh -c echo $HOME']).map((f) => f.operator)).toEqual(['$HOME']);
    // Not a shell: the double-quoted expansion reaches the program as written.
    expect(shellOperatorVerifiers(['node -c "$HOME"']).map((f) => f.operator)).toEqual(['$HOME']);
  });

  it('a backslash before $ or ` inside double quotes reaches the program (the splitter keeps it, a shell drops it): a warning naming the pair', () => {
    // The splitter as the verifier runs: `"\$HOME"` stays `\$HOME`, where sh passes `$HOME`.
    expect(splitCommand('sh -c "echo \\$HOME"')).toEqual(['sh', '-c', 'echo \\$HOME']);
    const found = shellOperatorVerifiers(['sh -c "echo \\$HOME"', 'echo "\\`date\\`"', 'printf "%s" "a\\$b"']);
    expect(found.map((f) => [f.kind, f.operator, f.inProgram])).toEqual([
      ['backslash', '\\$', false],
      ['backslash', '\\`', false],
      ['backslash', '\\$', false],
    ]);
    expect(shellOperatorWarning(found[0]!)).toBe(
      'warning: verifier `sh -c "echo \\$HOME"` holds `\\$` inside double quotes: a shell would drop that backslash, but verifiers are split without one (Python shlex rules, as the reference cordon) and keep it, so `sh` gets the backslash too; write `$` inside single quotes instead',
    );
    // Where the splitter and a shell agree: outside quotes, inside single quotes, before " and \\, and a line continuation.
    expect(shellOperatorVerifiers(['echo \\$HOME', "echo '\\$HOME'", 'echo "a\\"b"', 'echo "a\\\\b"', 'echo "a\\\nb"'])).toEqual([]);
  });
});
