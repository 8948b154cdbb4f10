import type { Policy } from './policy.js';
import { directoryGlobs, directoryGlobWarning } from './directory-globs.js';
import { bracketGlobs, bracketGlobWarning } from './literal-globs.js';
import { caseGlobs, caseGlobWarning } from './case-globs.js';

/**
 * The warnings for a policy's globs that are valid but most likely not what was meant, each one
 * line for stderr, the globs shown through `show` (the caller's terminal escaping): a glob that
 * names a directory of the work tree `root` (directory-globs.ts), a glob holding braces or
 * brackets, which are literal (literal-globs.ts), and a glob naming a path the work tree holds in
 * another letter case (case-globs.ts). The policy is used as given; every command
 * that fixes a policy (`arm`, `run`, `check --base`, from flags and `.cordon.json` alike)
 * prints these.
 */
export function policyGlobWarnings(policy: Pick<Policy, 'allow' | 'deny' | 'allow_ignored'>, root: string, show: (glob: string) => string): string[] {
  return [
    ...directoryGlobs(policy, root).map((found) => directoryGlobWarning(found, show)),
    ...bracketGlobs(policy).map((found) => bracketGlobWarning(found, show)),
    ...caseGlobs(policy, root).map((found) => caseGlobWarning(found, show)),
    ...replacementGlobWarnings(policy, show),
  ];
}

/**
 * One warning per glob holding U+FFFD, the character a byte that is not UTF-8 becomes in a
 * command-line argument (Node decodes `argv` as UTF-8, so `--deny $'secret\xff/**'` arrives as
 * `secret\ufffd/**`, the byte lost): such a glob matches only a name holding U+FFFD itself, never
 * the name with the byte, which cordon shows as `\udcff`. The warning says how to write it so
 * that it matches (`.cordon.json` with the `\udcXX` escape), as the JSON shows the name.
 */
export function replacementGlobWarnings(policy: Pick<Policy, 'allow' | 'deny' | 'allow_ignored'>, show: (glob: string) => string): string[] {
  const kinds = [['allow', policy.allow], ['deny', policy.deny], ['allow-ignored', policy.allow_ignored]] as const;
  return kinds.flatMap(([kind, globs]) =>
    globs
      .filter((glob) => glob.includes('\ufffd'))
      .map(
        (glob) =>
          `warning: ${kind} glob ${show(glob)} holds U+FFFD, which a byte that is not UTF-8 becomes in a command-line argument: it matches only names holding U+FFFD itself; for a name that is not UTF-8 write the glob in .cordon.json with the byte as a \\udcXX escape, as \`cordon check --json\` shows the name (\`"deny": ["secret\\udcff/**"]\`)`,
      ),
  );
}
