import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { readRegularFile } from '../../io/index.js';
import { parseJsonText, repeatedKey, repeatedKeyWords } from '../../util/json-syntax.js';

/** One row of the shell-command category table: the first rule whose `pattern` matches wins. */
export interface CategoryRule {
  readonly category: string;
  /** A JavaScript regular expression, searched (not anchored) in the command text. */
  readonly pattern: string;
  /** RegExp flags; default `i`. */
  readonly flags?: string;
}

/** A compiled {@link CategoryRule}. */
export interface CompiledRule {
  readonly category: string;
  readonly re: RegExp;
}

/** Category of a shell command no rule matched. */
export const OTHER_CATEGORY = 'other';

// Start of a command segment: the text start, or after `;`, `&&`, `||`, `|`, `(`, so `cd x && git
// status` is a vcs command while `echo git` is not.
const SEG = String.raw`(?:^|[;&|(]\s*)`;

/**
 * The default table (uncoalesced/cordon's categories, with `python` widened to `interpreter`), in
 * match order: test runners, package installs, builds, version control, interpreters running
 * code, file-system inspection. Anything else is `other`. Override with a JSON file (`--rules`):
 * either an array of rules or `{"rules": [...]}`, replacing this table.
 */
export const DEFAULT_CATEGORY_RULES: readonly CategoryRule[] = Object.freeze([
  { category: 'test', pattern: String.raw`\b(pytest|py\.test|unittest|nosetests|tox|jest|vitest|mocha|ava|phpunit|rspec|ctest)\b|\bgo\s+test\b|\bcargo\s+(test|nextest)\b|\b(mvn|gradle|gradlew)\s+test\b|\b(npm|pnpm|yarn|bun)\s+(run\s+)?test\b|\bmake\s+(test|check)\b` },
  { category: 'install', pattern: String.raw`\b(pip3?|uv|poetry|conda|mamba|npm|yarn|pnpm|bun|apt|apt-get|brew|cargo|gem|go)\s+(install|add|ci|sync|get)\b|\buv\s+pip\s+install\b` },
  { category: 'build', pattern: String.raw`${SEG}(make|cmake|ninja|tsc|gcc|g\+\+|clang|clang\+\+|javac|rustc|go\s+build|cargo\s+build|docker\s+build|(npm|pnpm|yarn)\s+(run\s+)?build|mvn\s+(package|compile))\b` },
  { category: 'vcs', pattern: String.raw`${SEG}(git|gh|hg|svn)\b` },
  { category: 'interpreter', pattern: String.raw`${SEG}(python[0-9.]*|py|node|deno|bun|ruby|perl|php|Rscript|julia|lua)\b` },
  { category: 'filesystem', pattern: String.raw`${SEG}(ls|dir|cat|type|head|tail|find|fd|grep|rg|ag|wc|cd|pwd|mkdir|rm|rmdir|cp|mv|touch|echo|printf|sed|awk|tree|stat|du|df|chmod|ln|diff|sort|uniq|xargs)\b` },
]);

/** Compiles a rule table. @throws CordonError `CORDON_BAD_INPUT` naming the bad rule. */
export function compileRules(rules: readonly CategoryRule[], source = 'rule table'): CompiledRule[] {
  return rules.map((r, i) => {
    if (!r || typeof r.category !== 'string' || !r.category || typeof r.pattern !== 'string') {
      throw new CordonError(ERROR_CODES.BAD_INPUT, `${source}: rule ${i + 1} needs a non-empty "category" and a "pattern" string`, { details: { source, rule: i + 1 } });
    }
    try {
      return { category: r.category, re: new RegExp(r.pattern, r.flags ?? 'i') };
    } catch (error) {
      throw new CordonError(ERROR_CODES.BAD_INPUT, `${source}: rule ${i + 1} (${r.category}) has an invalid pattern: ${(error as Error).message}`, { details: { source, rule: i + 1 } });
    }
  });
}

/** The category of a shell `command`: the first matching rule's, else {@link OTHER_CATEGORY}. */
export function categorize(command: string, rules: readonly CompiledRule[]): string {
  for (const r of rules) if (r.re.test(command)) return r.category;
  return OTHER_CATEGORY;
}

/**
 * Reads a rule table from a JSON file (an array of {@link CategoryRule} or `{"rules": [...]}`).
 * @throws CordonError `CORDON_BAD_INPUT` when the file cannot be read or is not such a table, or
 *   gives a key twice in one object (util/json-syntax.ts `repeatedKey`).
 */
export function loadRules(path: string): CompiledRule[] {
  let parsed: unknown;
  let text: string;
  try {
    text = readRegularFile(path, { maxBytes: 1 << 20, links: 'always' }).toString('utf8');
    parsed = parseJsonText(text);
  } catch (error) {
    throw new CordonError(ERROR_CODES.BAD_INPUT, `--rules ${path}: not a readable JSON file (${(error as Error).message})`, { details: { path } });
  }
  // A rule with "pattern" twice would keep the second unseen.
  const repeated = repeatedKey(text, parsed);
  if (repeated) throw new CordonError(ERROR_CODES.BAD_INPUT, `--rules ${path}: ${repeatedKeyWords(repeated)}`, { details: { path, key: repeated.key } });
  const list = Array.isArray(parsed) ? parsed : (parsed as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(list)) throw new CordonError(ERROR_CODES.BAD_INPUT, `--rules ${path}: expected an array of {category, pattern} or {"rules": [...]}`, { details: { path } });
  return compileRules(list as CategoryRule[], `--rules ${path}`);
}
