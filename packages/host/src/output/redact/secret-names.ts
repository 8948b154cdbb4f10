// podman's `run --secret NAME`: the name of a stored secret, not a value, which `redact.ts`'s
// general `--…secret` rule would otherwise mask.
import { isRunOption, launchedAt } from './containers.js';
import { isAssignment, programName } from './option-words.js';
import { innerWords, MAX_DEPTH, OPENERS, simpleCommands } from './shell-words.js';
import type { Word } from './types.js';
import { skipWrapperOptions, wrapperRules } from './wrappers.js';

/**
 * Whether `--secret` at `words[k]` (`--secret NAME` or `--secret=NAME`) is an option of `podman
 * run` (or `docker run`, which podman-docker installs as podman) before the image: podman-run(1),
 * https://docs.podman.io/en/latest/markdown/podman-run.1.html, "--secret=secret[,opt=opt …]: Give
 * the container access to a secret", the name of one `podman secret create` stored, not its value.
 * `words` is one simple command; assignments, reserved words, wrappers (`sudo`, `env`) and the
 * containers a command runs in (`docker exec c podman run …`) are passed over to its program.
 */
function namesSecretAt(words: readonly Word[], k: number): boolean {
  const text = words[k]!.text;
  if (text !== '--secret' && !text.startsWith('--secret=')) return false;
  let i = 0;
  while (i < k) {
    const word = words[i]!.text;
    if (isAssignment(word) || OPENERS.includes(word)) {
      i++;
      continue;
    }
    const name = programName(word);
    const wrapper = wrapperRules().get(name);
    if (wrapper !== undefined) {
      i = skipWrapperOptions(words, i + 1, wrapper);
      continue;
    }
    if (isRunOption(words, i, name, k)) return true;
    const launched = launchedAt(words, i, name);
    if (launched === undefined || launched.at > k) return false;
    i = launched.at;
  }
  return false;
}

/**
 * Whether the `--secret` option that starts at offset `at` of command line `text` names a secret
 * ({@link namesSecretAt}), also inside a word that is a command line of its own (`bash -c '…'`,
 * `ssh host '…'`), down to `MAX_DEPTH`.
 */
export function namesSecretInText(text: string, at: number): boolean {
  let commands = simpleCommands(text);
  for (let depth = 0; depth <= MAX_DEPTH; depth++) {
    let inside: Word | undefined;
    for (const words of commands) {
      const k = words.findIndex((w) => w.start <= at && at < w.end);
      if (k < 0) continue;
      if (words[k]!.start === at) return namesSecretAt(words, k);
      inside = words[k];
      break;
    }
    if (inside === undefined) return false;
    commands = innerWords(inside, 0);
  }
  return false;
}

/** The elements of `argv` that are a `--secret` option naming a secret ({@link namesSecretAt}): `--secret` (the name follows) or `--secret=NAME`. */
export function secretNameOptions(argv: readonly string[]): ReadonlySet<number> {
  const found = new Set<number>();
  let words: Word[] | undefined;
  for (let k = 0; k < argv.length; k++) {
    const text = argv[k]!;
    if (text !== '--secret' && !text.startsWith('--secret=')) continue;
    words ??= argv.map((source, element): Word => ({ source, element, text: source, start: 0, end: source.length }));
    if (namesSecretAt(words, k)) found.add(k);
  }
  return found;
}
