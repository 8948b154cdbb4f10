/** The flags of a plain envelope command's fast route: `[--repo PATH] [--json]`. */
export interface RepoJsonArgs {
  /** `--repo`: any directory inside the work tree (default: the current directory). */
  readonly repo?: string;
  /** `--json`: the command's JSON document instead of its human text. */
  readonly json: boolean;
}

/**
 * The fast routes' argument grammar for `check` and `status`: `--json` and `--repo PATH` /
 * `--repo=PATH`, each at most once, in any order. Returns `undefined` for anything else (help,
 * other flags, a `--repo` value that looks like a flag or is empty, unknown tokens), which oclif
 * then parses, so every refusal has one renderer.
 */
export function parseRepoJsonArgs(args: readonly string[]): RepoJsonArgs | undefined {
  let repo: string | undefined;
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--json' && !json) json = true;
    else if (arg === '--repo' && repo === undefined && i + 1 < args.length && !args[i + 1]!.startsWith('-') && args[i + 1] !== '') repo = args[++i];
    else if (arg.startsWith('--repo=') && repo === undefined && arg.length > '--repo='.length) repo = arg.slice('--repo='.length);
    else return undefined;
  }
  return repo === undefined ? { json } : { repo, json };
}
