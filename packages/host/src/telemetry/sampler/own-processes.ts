import type * as shlexModule from 'shlex';
import { lazyPackage } from '../../util/lazy-package.js';

/**
 * Cordon's own processes inside an agent's tree, told apart by their command line so the sampler
 * does not charge them to the agent (a `true` call would otherwise show the 60–80 MiB of the
 * `cordon hook` Node process the agent started around it).
 *
 * - `'subtree'`: a `cordon hook` invocation, as `install-hooks` writes it (`<node> <…>/bin/run.cjs
 *   hook …`; the older `run.js`, or a global `cordon hook …` shim), or that command inside a `sh -c "…"` wrapper.
 *   Nothing it starts is the agent's work, so its whole subtree is left out.
 * - `'self'`: the shell shim of `cordon wrap --shell-shim` (`<node> <…>/shim/shell.js`, or its
 *   `cordon-shell` launcher script before it execs Node), and `cordon control run` (`<node>
 *   <…>/bin/run.cjs control run …`, what `control guard` rewrites each shell call to). The process
 *   itself is left out, but the command it starts is the agent's, so its children still count
 *   (a guarded `sleep 4` showed 48.7 MiB, the control run Node process, against 4.7 MiB).
 */
export type OwnProcess = 'subtree' | 'self';

/** Shells an agent wraps a hook command in (`<shell> -c "<command>"`). */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ash', 'ksh']);
/** The words after `hook` in a hook command install-hooks writes (`--agent claude-code`): plain, no shell syntax. */
const PLAIN_WORD = /^[\w@%+=:,./-]*$/;

const shlex = lazyPackage<typeof shlexModule>('shlex');

function basename(arg: string): string {
  return arg.slice(arg.lastIndexOf('/') + 1);
}

function isCordonEntry(arg: string): boolean {
  return arg.endsWith('/bin/run.cjs') || arg.endsWith('/bin/run.js') || basename(arg) === 'cordon';
}

/**
 * Whether `argv` (a `/proc/<pid>/cmdline` split on NUL) is one of Cordon's own processes, and how
 * much of the tree under it to leave out; `undefined` for anything else.
 */
export function classifyOwnProcess(argv: readonly string[]): OwnProcess | undefined {
  if (argv.length === 0) return undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    // `<node> <entry> hook …` (node may be absent when the entry is exec'd through its shebang).
    if (i <= 1 && isCordonEntry(arg) && argv[i + 1] === 'hook') return 'subtree';
    if (i <= 1 && (arg.endsWith('/shim/shell.js') || basename(arg) === 'cordon-shell')) return 'self';
    if (i <= 1 && isCordonEntry(arg) && argv[i + 1] === 'control' && argv[i + 2] === 'run') return 'self';
  }
  if (SHELLS.has(basename(argv[0]!))) {
    const c = argv.indexOf('-c');
    if (c > 0 && c + 1 < argv.length && isHookScript(argv[c + 1]!)) return 'subtree';
  }
  return undefined;
}

/**
 * Whether a `sh -c` script is a hook command as install-hooks writes it: `[<node>] <entry> hook`
 * and plain arguments, its words split as the shell splits them. Not a script that merely holds
 * the text (`grep "cordon hook" docs && npm test` is the agent's work), nor one that goes on
 * after the hook (`cordon hook --agent x; make`).
 */
function isHookScript(script: string): boolean {
  if (!script.includes('hook')) return false;
  let words: string[];
  try {
    words = shlex().split(script);
  } catch {
    return false; // an unclosed quote: not a command install-hooks wrote
  }
  const at = words.indexOf('hook');
  return (at === 1 || at === 2) && isCordonEntry(words[at - 1]!) && words.slice(at + 1).every((word) => PLAIN_WORD.test(word));
}

/** Splits the raw bytes of `/proc/<pid>/cmdline` (NUL-separated, NUL-terminated) into arguments. */
export function splitCmdline(raw: string): string[] {
  const args = raw.split('\0');
  if (args.length > 0 && args[args.length - 1] === '') args.pop();
  return args;
}
