/**
 * Where the command string sits in a shell's argument vector, for the shell shim.
 *
 * POSIX `sh [-abCefhimnuvx] [-o option]... -c command_string [command_name [argument...]]`
 * (and bash/zsh alike): options come first, possibly clustered (`-lc`, `-ic`); with `c` among
 * them the first operand is the command string. Aider runs `$SHELL -c <cmd>` through Python's
 * `subprocess(shell=True, executable=$SHELL)` and `$SHELL -i -c <cmd>` through pexpect
 * (Aider has no hooks: docs/references.md#aider).
 */
export interface ShellCommand {
  /** Index of the command string in the arguments. */
  readonly index: number;
  readonly command: string;
}

/** The `-c` command string of `args` (the shell's arguments without argv[0]), or `undefined`. */
export function findCommand(args: readonly string[]): ShellCommand | undefined {
  let sawC = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      return sawC && i + 1 < args.length ? { index: i + 1, command: args[i + 1]! } : undefined;
    }
    if ((a.startsWith('-') || a.startsWith('+')) && a.length > 1) {
      if (a === '-o' || a === '+o' || a === '-O' || a === '+O') {
        i++; // the option name is its own argument
        continue;
      }
      if (a.startsWith('--')) continue; // long options (bash --norc, --login)
      if (a.slice(1).includes('c')) sawC = true;
      continue;
    }
    return sawC ? { index: i, command: a } : undefined;
  }
  return undefined;
}
