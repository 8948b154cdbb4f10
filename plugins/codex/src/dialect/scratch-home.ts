import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { listHooks, type ListedHook } from './app-server.js';

/**
 * The files of a Codex home that decide which hooks Codex lists and whether it trusts them: the
 * user config (trust entries, `[features]`, project trust), the user hooks file, and the managed
 * and requirements layers where a home holds them (codex-rs config loader, codex-cli 0.171.0).
 */
const CONFIG_FILES = ['config.toml', 'hooks.json', 'managed_config.toml', 'requirements.toml'];

/**
 * `config.toml` text with the trust keys of `from`'s hooks file (`"<from>/hooks.json:<event>:<g>:<h>"`)
 * naming the same file under `to`, so that Codex run with `CODEX_HOME=to` finds the trust the
 * user's home holds. The key is replaced as TOML writes it, verbatim in a literal or basic string
 * and with JSON's escapes (TOML's for `"` and `\\`) in a basic one; nothing else changes.
 */
export function trustMovedTo(text: string, from: string, to: string): string {
  const key = (dir: string): string => `${dir}${sep}hooks.json:`;
  const escape = (value: string): string => JSON.stringify(value).slice(1, -1);
  let out = text.split(key(from)).join(key(to));
  // A path with a backslash or a quote (Windows) is written escaped in a basic string.
  if (escape(key(from)) !== key(from)) out = out.split(escape(key(from))).join(escape(key(to)));
  return out;
}

/** What {@link listHooksAside} needs: the Codex binary, the real home and how to read its files. */
export interface AsideOptions {
  /** The environment Codex would run in (its `CODEX_HOME` is replaced by the scratch home). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Working directory: the project whose hooks Codex lists too. */
  readonly cwd: string;
  /** The user's Codex home as Codex computes it (install.ts `codexHome`). */
  readonly home: string;
  /** Text of a file, `undefined` when missing (the install context's reader). */
  readonly readFile: (path: string) => string | undefined;
  readonly timeoutMs?: number;
}

/**
 * `codex app-server`'s `hooks/list` as Codex would answer it in the user's home, without running
 * Codex there: on start the app-server creates its state, log, goal, memory and queue databases,
 * system skills, a `.tmp` folder and an `installation_id` in `CODEX_HOME` (about 1 MB, codex-cli
 * 0.171.0), which a check of the config must not leave behind (and which made `uninstall-hooks`
 * unable to remove a `~/.codex` install had created). So Codex runs with `CODEX_HOME` a new
 * owner-only scratch directory holding copies of {@link CONFIG_FILES} (the trust keys of the user's
 * hooks file moved with it: {@link trustMovedTo}), its `sqlite_home` and
 * `log_dir` pointed there too (a copied config.toml may name the user's own), and the directory is
 * removed afterwards. Codex keys trust by the hooks file's path, so every key and source path under
 * the scratch home is given back under `home`; a project's hooks file is listed under its own path.
 * Rejects as {@link listHooks} does.
 */
export async function listHooksAside(codexBin: string, options: AsideOptions): Promise<ListedHook[]> {
  // Canonical, as Codex canonicalises CODEX_HOME (a /tmp that is a link, as on macOS).
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'cordon-codex-check-')));
  try {
    for (const name of CONFIG_FILES) {
      const text = options.readFile(join(options.home, name));
      if (text !== undefined) writeFileSync(join(scratch, name), name === 'config.toml' ? trustMovedTo(text, options.home, scratch) : text, { mode: 0o600 });
    }
    const listed = await listHooks(codexBin, {
      env: { ...options.env, CODEX_HOME: scratch, CODEX_SQLITE_HOME: scratch },
      cwd: options.cwd,
      timeoutMs: options.timeoutMs,
      overrides: { sqlite_home: JSON.stringify(scratch), log_dir: JSON.stringify(join(scratch, 'log')) },
    });
    const back = (path: string): string => (path === scratch || path.startsWith(scratch + sep) ? options.home + path.slice(scratch.length) : path);
    return listed.map((h) => ({ ...h, key: back(h.key), ...(h.sourcePath !== undefined ? { sourcePath: back(h.sourcePath) } : {}) }));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
