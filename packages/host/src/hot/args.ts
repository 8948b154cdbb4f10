/** Parsed `cordon hook` arguments. */
export interface HookArgs {
  /** `--agent <name>`: the dialect to use; absent means recognise it from the payload. */
  readonly agent?: string;
  /** Arguments not understood (logged, never fatal: agents' configs outlive cordon versions). */
  readonly unknown: readonly string[];
}

/**
 * Parses the hot path's arguments (`cordon hook [--agent <name> | --agent=<name>]`) without
 * oclif. Unknown arguments are collected, not rejected: a hook must not fail on them.
 */
export function parseHookArgs(argv: readonly string[]): HookArgs {
  let agent: string | undefined;
  const unknown: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--agent' || arg === '-a') {
      const value = argv[i + 1];
      if (value !== undefined && !value.startsWith('-')) {
        agent = value;
        i++;
      } else unknown.push(arg);
    } else if (arg.startsWith('--agent=')) agent = arg.slice('--agent='.length) || undefined;
    else unknown.push(arg);
  }
  return { agent, unknown };
}
