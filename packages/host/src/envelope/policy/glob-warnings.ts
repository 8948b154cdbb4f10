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
  return [...directoryGlobs(policy, root).map((found) => directoryGlobWarning(found, show)), ...bracketGlobs(policy).map((found) => bracketGlobWarning(found, show)), ...caseGlobs(policy, root).map((found) => caseGlobWarning(found, show))];
}
