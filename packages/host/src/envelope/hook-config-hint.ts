import { readRegularFile } from '../io/safe-read.js';
import { MAX_CONFIG_BYTES } from '../install-hooks/files.js';
import { absPath } from './evidence/fs-path.js';
import type { UntrackedPath } from './evidence/untracked.js';

/**
 * The words every hook command `cordon install-hooks` writes holds (`cordon hook --agent
 * claude-code`, `/usr/bin/node …/run.cjs hook --agent codex`), in any agent's config format.
 */
const HOOK_COMMAND = /\bhook --agent [a-z]/;

/**
 * The hint `cordon arm` adds to its "not clean" refusal when every untracked file in the way is an
 * agent config holding cordon's hook command (what `cordon install-hooks --scope project` wrote and
 * nobody committed yet): commit it, or list it in `.git/info/exclude`, where git, and so cordon,
 * no longer sees it. Undefined when any of them is something else, or cannot be read (at most
 * 1 MiB, no link followed). `untracked` are the files `arm` listed, relative to the work tree `root`.
 */
export function hookConfigHint(root: string, untracked: readonly UntrackedPath[]): string | undefined {
  if (untracked.length === 0 || untracked.some((u) => u.kind !== 'path')) return undefined;
  const paths = untracked.map((u) => u.path);
  for (const path of paths) {
    const abs = absPath(root, path);
    // Agent config names are plain text; a name that is not UTF-8 is no config cordon wrote.
    if (typeof abs !== 'string') return undefined;
    let text: string;
    try {
      text = readRegularFile(abs, { maxBytes: MAX_CONFIG_BYTES }).toString('utf8');
    } catch {
      return undefined;
    }
    if (!HOOK_COMMAND.test(text)) return undefined;
  }
  const lines = paths.map((path) => `/${path}`).join(' and ');
  return `${paths.length === 1 ? 'it is an agent hook config' : 'they are agent hook configs'} cordon install-hooks wrote: commit ${paths.length === 1 ? 'it' : 'them'} to share the hooks, or keep ${paths.length === 1 ? 'it' : 'them'} out of git by adding ${lines} to .git/info/exclude (git rev-parse --git-path info/exclude names the file), then arm again`;
}
