// Words that run the rest of their words as a command (`sudo`, `timeout 5`, `nice -n 5`, `xargs`
// …): each with its options that take a value, so the program they run is found past them.
import { afterOptions } from './option-words.js';
import type { Word } from './types.js';

/** A word that runs the rest of its words as a command: its options that take a value, and the operands before the command. */
export interface Wrapper {
  /** Options whose value is the next word (`-u` of `sudo -u root`); an attached value (`-n5`, `--signal=KILL`) needs none. */
  readonly valued: readonly string[];
  /** Operands between its options and the command (`timeout`'s duration). */
  readonly operands: number;
}

let wrappers: ReadonlyMap<string, Wrapper> | undefined;
/**
 * Words that come before the program and run it, each with its options that take a value (so
 * the value is not read as the program): sudo(8) https://www.sudo.ws/docs/man/sudo.man/, env(1),
 * exec/command/time (bash(1) "SHELL BUILTIN COMMANDS", GNU time(1)), nohup(1); GNU coreutils'
 * timeout https://www.gnu.org/software/coreutils/manual/html_node/timeout-invocation.html (`-k
 * DURATION`, `-s SIGNAL`, then the DURATION operand), nice
 * https://www.gnu.org/software/coreutils/manual/html_node/nice-invocation.html (`-n N`; the
 * obsolete `-N` takes none) and stdbuf
 * https://www.gnu.org/software/coreutils/manual/html_node/stdbuf-invocation.html (`-i`, `-o`, `-e
 * MODE`); util-linux ionice(1) https://man7.org/linux/man-pages/man1/ionice.1.html (`-c`, `-n`,
 * `-p`, `-P`, `-u`); GNU findutils' xargs(1) https://man7.org/linux/man-pages/man1/xargs.1.html
 * (`-a`, `-d`, `-E`, `-I`, `-L`, `-n`, `-P`, `-s`; `-e`, `-i`, `-l` take theirs attached only);
 * OpenBSD doas(1) https://man.openbsd.org/doas.1 (`-C config`, `-u user`). Built on first use.
 * env(1) has a reader of its own (grammars/env.ts), which takes its options from here.
 */
export function wrapperRules(): ReadonlyMap<string, Wrapper> {
  const wrapper = (valued: readonly string[], operands = 0): Wrapper => ({ valued, operands });
  return (wrappers ??= new Map([
    ['sudo', wrapper(['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-T', '-U', '-R', '--user', '--group', '--host', '--prompt', '--close-from', '--chdir', '--role', '--type', '--command-timeout', '--other-user', '--chroot'])],
    ['env', wrapper(['-u', '-C', '-S', '--unset', '--chdir', '--split-string'])],
    ['exec', wrapper(['-a'])],
    ['command', wrapper([])],
    ['time', wrapper(['-f', '-o', '--format', '--output'])],
    ['nohup', wrapper([])],
    ['timeout', wrapper(['-k', '-s', '--kill-after', '--signal'], 1)],
    ['nice', wrapper(['-n', '--adjustment'])],
    ['ionice', wrapper(['-c', '-n', '-p', '-P', '-u', '--class', '--classdata', '--pid', '--pgid', '--uid'])],
    ['stdbuf', wrapper(['-i', '-o', '-e', '--input', '--output', '--error'])],
    ['xargs', wrapper(['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'])],
    ['doas', wrapper(['-C', '-u'])],
  ]));
}

/** Index of the command a wrapper runs (`sudo -u root curl` → `curl`, `timeout -s KILL 5 mysql` → `mysql`). */
export function skipWrapperOptions(words: readonly Word[], i: number, wrapper: Wrapper): number {
  return afterOptions(words, i, wrapper.valued) + wrapper.operands;
}
