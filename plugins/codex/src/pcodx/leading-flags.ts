/** The global flags the reference pcodx takes before its command (the Rust pcodx, SichangHe/partial_compact_codex), each with a value. */
const GLOBAL_FLAGS = new Set(['--db', '--session', '--cwd']);

/**
 * What `cordon pcodx ARGS` (and the `pcodx` bin) means when ARGS does not start with a command:
 * the reference's spelling, global flags first (`pcodx --db D --session S init`), runs the command
 * with those flags moved after it; nothing at all, or only `--help`, prints the topic help.
 * Anything else (no command after the flags, an unknown command or flag) is a usage error, exit 2.
 */
export function splitLeadingFlags(argv: readonly string[]): { kind: 'help' } | { kind: 'run'; command: string; argv: string[] } | { kind: 'error'; message: string } {
  const globals: string[] = [];
  let i = 0;
  while (i < argv.length && argv[i]!.startsWith('-')) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (!GLOBAL_FLAGS.has(name)) return { kind: 'error', message: `${JSON.stringify(arg)} is not a global flag of pcodx (those are --db, --session and --cwd); put the command first: pcodx <command> [flags]` };
    if (eq >= 0) {
      globals.push(arg);
      i += 1;
      continue;
    }
    if (i + 1 >= argv.length) return { kind: 'error', message: `${name} needs a value` };
    globals.push(arg, argv[i + 1]!);
    i += 2;
  }
  if (i >= argv.length) return globals.length === 0 ? { kind: 'help' } : { kind: 'error', message: `name a command after the global flags, e.g. pcodx ${globals.join(' ')} init` };
  return { kind: 'run', command: argv[i]!, argv: [...argv.slice(i + 1), ...globals] };
}
