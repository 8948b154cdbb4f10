import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import validate from 'validate-npm-package-name';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { posixCommand } from '../install-hooks/quote/posix.js';

/** What `cordon plugins install` takes, said after a refusal. */
const TAKES = '`cordon plugins install` takes an npm package name (`@cordon/codex`, or a short name such as `codex`), a GitHub repository as owner/repo, or a git or `file:` URL';

/**
 * Whether `word` is a file-system path rather than a package name, repository or URL: `.` or `..`
 * or `~` alone or followed by a slash, an absolute path (`/x`), or a Windows path (a backslash,
 * `C:`). oclif's installer reads `../x`, `./x` and `/x` as GitHub's owner/repo shorthand (and
 * fetches `https://github.com/../x`), and a Windows path as a package name.
 */
function isLocalPath(word: string): boolean {
  return /^(?:\.{1,2}|~)(?:[\\/]|$)/.test(word) || word.startsWith('/') || word.includes('\\') || /^[A-Za-z]:/.test(word);
}

/**
 * Why `word`, an argument of `cordon plugins install` (first-party short names already resolved
 * to their packages: plugins/plugin-names.ts), cannot be installed, checked before it is handed to
 * oclif's installer, which does the install; `undefined` when it can be tried. The word is read as
 * that installer reads it (@oclif/plugin-plugins 5, `parsePlugin`): a git URL (`git+ssh://…`,
 * `….git`) and a word with a slash and a colon (a URL, `file:…`) pass; a local path is refused
 * with the `cordon plugins link` command to use instead; another word with a slash is GitHub's
 * owner/repo and passes; what is left, and a scoped `@scope/name`, is a package name with an
 * optional `@tag`, judged by npm's own rules for new names (the `validate-npm-package-name`
 * package oclif's installer uses, so nothing it would take is refused here). A refusal is
 * `CORDON_BAD_INPUT` (exit 2) naming the word JSON-quoted, with npm's reasons; oclif said only
 * `Invalid npm package name.`
 */
export function installSpecProblem(word: string): CordonError | undefined {
  if (word.startsWith('git+ssh://') || word.endsWith('.git')) return undefined;
  if (isLocalPath(word) && /\.(?:tgz|tar\.gz|tar)$/i.test(word)) {
    // A packed plugin (`npm pack`): installed as a `file:` URL, not linked (a link takes a directory).
    const spec = `file:${resolve(word)}`;
    return new CordonError(ERROR_CODES.BAD_INPUT, `${JSON.stringify(word)} is a local path: for a packed plugin use \`${posixCommand(['cordon', 'plugins', 'install', spec])}\` (${TAKES})`, {
      details: { plugin: word, reason: 'local-path' },
    });
  }
  if (isLocalPath(word)) {
    return new CordonError(ERROR_CODES.BAD_INPUT, `${JSON.stringify(word)} is a local path: for a plugin in a local directory use \`${posixCommand(['cordon', 'plugins', 'link', word])}\` (${TAKES})`, {
      details: { plugin: word, reason: 'local-path' },
    });
  }
  if (!word.startsWith('@') && word.includes('/')) return undefined;
  // oclif's split: the name ends at the first `@` that is not its first character.
  const name = word.split(/(?<!^)@/)[0]!;
  const verdict = validate(name);
  if (verdict.validForNewPackages) return undefined;
  const reasons = [...(verdict.errors ?? []), ...(verdict.warnings ?? [])];
  const named = name === word ? JSON.stringify(word) : `${JSON.stringify(name)} (in ${JSON.stringify(word)})`;
  return new CordonError(ERROR_CODES.BAD_INPUT, `${named} is not a valid npm package name (${reasons.join('; ')}): ${TAKES}`, {
    details: { plugin: word, reason: 'package-name', problems: reasons },
  });
}

/**
 * `word`, a `file:` spec of `cordon plugins install`, with a relative path made absolute against
 * `cwd` (`file:./x.tgz` is `file:/home/me/x.tgz`): npm runs in cordon's data directory, where a
 * relative path named nothing the user meant (npm failed with exit 254). Any other word as given.
 */
export function absoluteFileSpec(word: string, cwd: string = process.cwd()): string {
  if (!word.startsWith('file:') || word.startsWith('file://')) return word;
  const path = word.slice('file:'.length);
  return isAbsolute(path) ? word : `file:${resolve(cwd, path)}`;
}

/**
 * Why `word`, when a `file:` spec of `cordon plugins install`, cannot be installed: nothing at
 * its path (resolved as {@link absoluteFileSpec} does); npm's own words were only that it `exited
 * with code 254`. `CORDON_BAD_INPUT` naming the word and the path; undefined otherwise.
 */
export function fileSpecProblem(word: string): CordonError | undefined {
  if (!word.startsWith('file:') || word.startsWith('file://')) return undefined;
  const path = absoluteFileSpec(word).slice('file:'.length);
  if (statSync(path, { throwIfNoEntry: false })) return undefined;
  return new CordonError(ERROR_CODES.BAD_INPUT, `${JSON.stringify(word)}: nothing at ${path}; \`cordon plugins install file:PATH\` takes a packed plugin (npm pack) or a plugin package's directory`, {
    details: { plugin: word, reason: 'missing-file', path },
  });
}
