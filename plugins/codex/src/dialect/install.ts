import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ConfigChange, ConfigDocument, HookInstaller, InstallContext, InstallPlan, TomlDocument } from '@cordon/plugin-api';
import { listHooksAside } from './scratch-home.js';
import { trustHash, trustKey } from './trust.js';

/**
 * What cordon registers in Codex (the Codex hooks docs): the tool events with
 * matcher `*`, and the session events. Timeouts are seconds; Codex clamps SessionEnd to 3 s.
 */
export const CODEX_EVENTS: ReadonlyArray<{ readonly event: string; readonly matcher?: string; readonly timeout: number }> = [
  { event: 'PreToolUse', matcher: '*', timeout: 30 },
  { event: 'PostToolUse', matcher: '*', timeout: 30 },
  { event: 'SessionStart', timeout: 30 },
  { event: 'SessionEnd', timeout: 3 },
];

/** Root keys Codex accepts in hooks.json; any other key makes it reject the whole file (the Codex hooks docs, live). */
const ROOT_KEYS = new Set(['description', 'hooks']);

/** Comment above each trust table cordon writes into config.toml. */
const TRUST_COMMENT = 'trust for the cordon hook (cordon install-hooks)';

/**
 * `cordon … hook --agent codex`, as any install wrote it: POSIX-quoted or not, the PowerShell form
 * (`& 'C:\…\node.exe' 'C:\…\run.cjs' hook --agent codex`) or the cmd.exe form (carets before quotes), with
 * `cordon`, `cordon.cmd`, `cordon.exe`, `cordon.ps1` or `bin/run.cjs` before `hook`.
 */
export function isCordonCommand(command: unknown): boolean {
  return typeof command === 'string' && /(^|[\s/\\'"])(cordon(\.(cmd|exe|ps1))?|run\.c?js)\^?['"]?\s+hook\s+--agent[\s=]\^?['"]?codex\^?['"]?\s*$/.test(command);
}

/**
 * Whether a handler's command is cordon's: any form {@link isCordonCommand} knows, or exactly the
 * command this install writes (`--command` may name an executable of any name, a wrapper script).
 */
function oursFor(ctx: InstallContext): (command: unknown) => boolean {
  const written = codexCommand(ctx);
  return (command) => command === written || isCordonCommand(command);
}

/**
 * The handler's command for the platform. Codex runs hook commands with the session's shell:
 * `$SHELL -lc` on Unix; on Windows PowerShell (`pwsh`/`powershell.exe -NoProfile -Command`),
 * and `cmd.exe /c` only where no PowerShell is found (codex-rs `build_hooks_for_config`,
 * `shell_detect`; openai/codex#46454). So on Windows it gets the PowerShell form in
 * `command` itself: Codex hashes that string for trust (a `commandWindows` would replace it
 * before hashing anyway), and when every path is plain the form is a bare line cmd.exe reads the same.
 */
export function codexCommand(ctx: InstallContext): string {
  return ctx.command.platform === 'win32' ? ctx.command.powershell : ctx.command.shell;
}

/** Error code the host knows (catalogue `BAD_INPUT`). */
const BAD_INPUT = 'CORDON_BAD_INPUT';

/**
 * Codex's home exactly as Codex computes it, so trust keys built on it are the keys Codex looks
 * up (codex-rs `utils/home-dir` `find_codex_home`, checked live against codex-cli 0.171.0): a
 * non-empty `CODEX_HOME` must name an existing directory and is canonicalised — resolved against
 * the current directory when relative (`~` is not expanded) and through every symbolic link;
 * without it, `$HOME/.codex`, normalised but **not** resolved through links.
 * @throws an error with code `CORDON_BAD_INPUT` when `CODEX_HOME` names nothing or not a
 *   directory (Codex itself refuses to start then).
 */
export function codexHome(ctx: InstallContext): string {
  const value = ctx.env.CODEX_HOME;
  if (!value) return resolve(ctx.home, '.codex');
  const absolute = resolve(value);
  if (!ctx.isDirectory(absolute)) {
    const tilde = value.startsWith('~') ? ' (Codex does not expand "~" in CODEX_HOME: it reads it as a folder named "~" in the current directory)' : '';
    throw Object.assign(new Error(`CODEX_HOME points to ${JSON.stringify(value)}, which is not an existing directory${tilde}; Codex refuses to start with it. Create it or set CODEX_HOME to an absolute path`), { code: BAD_INPUT });
  }
  return realpathSync(absolute);
}

/**
 * The project root as Codex sees it when it runs there: its working directory is the physical
 * path (`getcwd`), so a project reached through a link is keyed by its real path.
 */
function codexProjectDir(ctx: InstallContext): string {
  try {
    return realpathSync(ctx.projectDir);
  } catch {
    return ctx.projectDir;
  }
}

/** hooks.json for the scope: `$CODEX_HOME/hooks.json` or `<project>/.codex/hooks.json`, as the path Codex keys trust by. */
export function codexHooksPath(ctx: InstallContext): string {
  return ctx.scope === 'project' ? join(codexProjectDir(ctx), '.codex', 'hooks.json') : join(codexHome(ctx), 'hooks.json');
}

/** The file `path` names, through every link (its directory's real path when the file is missing). */
function realFile(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return join(realpathSync(dirname(path)), basename(path));
    } catch {
      return resolve(path);
    }
  }
}

/** The hooks file of a trust key (`<path>:<label>:<group>:<handler>`); `undefined` when the key has another shape. */
export function keyFile(key: string): string | undefined {
  const m = /^(.*):[a-z_]+:\d+:\d+$/.exec(key);
  return m?.[1];
}

/** The user config.toml: the only layer that can hold hook trust (the Codex hooks docs). */
export function codexConfigPath(ctx: InstallContext): string {
  return join(codexHome(ctx), 'config.toml');
}

interface Handler {
  readonly event: string;
  readonly group: number;
  readonly index: number;
  readonly matcher?: unknown;
  readonly command: string;
  readonly timeout?: unknown;
  readonly async?: unknown;
  readonly statusMessage?: unknown;
  readonly cordon: boolean;
}

/** Every command handler of a hooks.json value, with its position. */
function handlers(value: unknown, isOurs: (command: unknown) => boolean = isCordonCommand): Handler[] {
  const out: Handler[] = [];
  const hooks = (value as { hooks?: unknown })?.hooks;
  if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks)) return out;
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group: any, g) => {
      const list = Array.isArray(group?.hooks) ? group.hooks : [];
      list.forEach((h: any, i: number) => {
        if (typeof h?.command !== 'string') return;
        out.push({ event, group: g, index: i, matcher: group?.matcher, command: h.command, timeout: h.timeout, async: h.async, statusMessage: h.statusMessage, cordon: isOurs(h.command) });
      });
    });
  }
  return out;
}

const stateOf = (toml: TomlDocument): Record<string, { trusted_hash?: unknown }> => ((toml.value as any)?.hooks?.state ?? {}) as Record<string, { trusted_hash?: unknown }>;

/**
 * Rewrites the trust tables after hooks.json changed from `before` to `after`: trust of the user's
 * own handlers follows them when removing cordon's shifted their positions; trust of removed
 * cordon handlers goes; every cordon handler in `after` gets its computed hash.
 */
/** @returns how many of cordon's trust entries were removed. */
function retrust(toml: TomlDocument, path: string, before: Handler[], after: Handler[], identities: Handler[]): number {
  const state = stateOf(toml);
  const moves: Array<{ from: string; to: string; hash: unknown }> = [];
  const removals = new Set<string>();
  const events = new Set([...before, ...after].map((h) => h.event));
  for (const event of events) {
    const userBefore = before.filter((h) => h.event === event && !h.cordon);
    const userAfter = after.filter((h) => h.event === event && !h.cordon);
    userBefore.forEach((h, i) => {
      const moved = userAfter[i];
      const from = trustKey(path, event, h.group, h.index);
      const to = moved ? trustKey(path, event, moved.group, moved.index) : undefined;
      if (from && to && from !== to && state[from]?.trusted_hash !== undefined) moves.push({ from, to, hash: state[from]!.trusted_hash });
    });
    for (const h of before.filter((x) => x.event === event && x.cordon)) {
      const key = trustKey(path, event, h.group, h.index);
      if (key && state[key] !== undefined && state[key]!.trusted_hash === trustHash(h)) removals.add(key);
    }
  }
  for (const m of moves) removals.add(m.from);
  const current = new Map(after.filter((h) => h.cordon).map((h) => [trustKey(path, h.event, h.group, h.index), trustHash(h)]));
  for (const key of staleKeys(state, path, [...before, ...after, ...identities])) if (current.get(key) !== state[key]?.trusted_hash) removals.add(key);
  for (const key of removals) toml.removeTable(['hooks', 'state', key], TRUST_COMMENT);
  for (const m of moves) if (typeof m.hash === 'string') toml.upsertTable(['hooks', 'state', m.to], { trusted_hash: m.hash });
  const cordonRemoved = removals.size - moves.length;
  for (const h of after.filter((x) => x.cordon)) {
    const key = trustKey(path, h.event, h.group, h.index);
    const hash = trustHash(h);
    if (key && hash) toml.upsertTable(['hooks', 'state', key], { trusted_hash: hash }, TRUST_COMMENT);
  }
  return cordonRemoved;
}

/**
 * Every trust entry of this hooks file that holds the hash of one of cordon's handlers, under
 * any spelling of the file's path (a symlinked or relative `CODEX_HOME`, an older install that
 * did not resolve it: keys Codex never reads). A hash covers the command, so an entry of the
 * user's own hooks never matches.
 */
function staleKeys(state: Record<string, { trusted_hash?: unknown }>, path: string, handlers: Handler[]): string[] {
  const hashes = new Set(handlers.filter((h) => h.cordon).map((h) => trustHash(h)));
  const real = realFile(path);
  return Object.keys(state).filter((key) => {
    const file = keyFile(key);
    return file !== undefined && hashes.has(state[key]?.trusted_hash as string) && (file === path || realFile(file) === real);
  });
}

/** The handlers cordon writes, as trust identities: their hashes mark cordon's entries even where hooks.json no longer holds them. */
function identities(ctx: InstallContext): Handler[] {
  return CODEX_EVENTS.map(({ event, matcher, timeout }) => ({ event, group: 0, index: 0, matcher, command: codexCommand(ctx), timeout, cordon: true }));
}

function change(path: string, before: string | undefined, after: string | undefined, summary: string, cordonRemoved?: number): ConfigChange[] {
  return before === after ? [] : [{ path, before, after, summary, ...(cordonRemoved !== undefined ? { cordonRemoved } : {}) }];
}

function notesFor(ctx: InstallContext, doc: ConfigDocument, config: TomlDocument): string[] {
  const notes: string[] = [];
  const extra = Object.keys(doc.value as object).filter((k) => !ROOT_KEYS.has(k));
  if (extra.length) notes.push(`${codexHooksPath(ctx)} has root keys Codex rejects the whole file for (${extra.join(', ')}): only "description" and "hooks" are allowed`);
  const features = (config.value as any)?.features;
  if (features && (features.hooks === false || features.codex_hooks === false)) notes.push(`${codexConfigPath(ctx)} turns hooks off ([features] hooks = false); Codex runs no hooks until that is removed`);
  if (ctx.scope === 'project') {
    const trusted = (config.value as any)?.projects?.[ctx.projectDir]?.trust_level === 'trusted';
    if (!trusted) notes.push(`Codex loads ${codexHooksPath(ctx)} only in a trusted project: trust ${ctx.projectDir} when Codex asks, or add [projects."${ctx.projectDir}"] trust_level = "trusted" to ${codexConfigPath(ctx)}`);
  }
  return notes;
}

/** The codex binary that can confirm trust: `CORDON_CODEX_BIN`, else `codex` on PATH. */
function codexBin(ctx: InstallContext): string | undefined {
  return ctx.env.CORDON_CODEX_BIN || ctx.which('codex');
}

/** The warning of an install whose trust entries no codex binary could confirm. */
export const UNCONFIRMED =
  'trust NOT confirmed: codex is not on PATH, so cordon could not ask Codex which trust entries it expects. The entries were computed by Codex\'s own rule, but if `codex` lists the cordon hooks as untrusted it runs none of them: put codex on PATH (or set CORDON_CODEX_BIN) and run install-hooks --write again';

/** Codex's hooks.json + config.toml trust writer. */
export const installer: HookInstaller = {
  // Installed when on PATH or its home exists; at project scope also when the project has a `.codex/`.
  detect: (ctx) => ctx.which('codex') !== undefined || ctx.isDirectory(ctx.env.CODEX_HOME || join(ctx.home, '.codex')) || (ctx.scope === 'project' && ctx.isDirectory(join(ctx.projectDir, '.codex'))),

  install(ctx): InstallPlan {
    const hooksPath = codexHooksPath(ctx);
    const configPath = codexConfigPath(ctx);
    const hooksBefore = ctx.readFile(hooksPath);
    const configBefore = ctx.readFile(configPath);
    const doc = ctx.formats.json(hooksPath, hooksBefore);
    const config = ctx.formats.toml(configPath, configBefore);
    const command = codexCommand(ctx);
    const before = handlers(doc.value, oursFor(ctx));
    if (hooksBefore === undefined) doc.set(['description'], 'managed by cordon');
    const removed: string[] = [];
    const present = ctx.hookLists.removeCommands(doc, { layout: 'grouped', isOurs: oursFor(ctx), keep: command, removed });
    const added: string[] = [];
    for (const { event, matcher, timeout } of CODEX_EVENTS) {
      if (present.has(event)) continue;
      doc.append(['hooks', event], { ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command, timeout }] });
      added.push(event);
    }
    retrust(config, hooksPath, before, handlers(doc.value, oursFor(ctx)), identities(ctx));
    const notes = notesFor(ctx, doc, config);
    // The hashes follow Codex's own rule (the Codex hooks docs); only a codex binary can confirm them.
    const warnings = codexBin(ctx) ? [] : [UNCONFIRMED];
    return {
      changes: [...change(hooksPath, hooksBefore, doc.toString(), ctx.hookLists.summary(added, removed)), ...change(configPath, configBefore, config.toString(), 'trust the cordon hooks ([hooks.state] trusted_hash)')],
      notes,
      warnings,
    };
  },

  uninstall(ctx): InstallPlan {
    const hooksPath = codexHooksPath(ctx);
    const configPath = codexConfigPath(ctx);
    const hooksBefore = ctx.readFile(hooksPath);
    const configBefore = ctx.readFile(configPath);
    const doc = ctx.formats.json(hooksPath, hooksBefore);
    const config = ctx.formats.toml(configPath, configBefore);
    const before = handlers(doc.value, oursFor(ctx));
    const removed: string[] = [];
    ctx.hookLists.removeCommands(doc, { layout: 'grouped', isOurs: oursFor(ctx), removed });
    // Trust entries go even when hooks.json is gone or no longer holds cordon (their hashes mark them).
    const trustRemoved = retrust(config, hooksPath, before, handlers(doc.value, oursFor(ctx)), identities(ctx));
    // Whether a file goes (install created it) or gets its original bytes back is the host's call (its install record).
    return {
      changes: [
        ...(hooksBefore === undefined ? [] : change(hooksPath, hooksBefore, doc.toString(), ctx.hookLists.summary([], removed), removed.length)),
        ...(configBefore === undefined ? [] : change(configPath, configBefore, config.toString(), 'remove the trust entries of the cordon hooks', trustRemoved)),
      ],
      notes: [],
    };
  },

  /**
   * Asks the installed Codex (`codex app-server` → `hooks/list`, run on copies of the config
   * files so that nothing lands in the user's Codex home: scratch-home.ts) for the key and hash of every
   * cordon hook it sees, writes exactly those trust entries and removes every other entry that
   * holds a cordon hash for this hooks file (a key Codex never looks up), so the result is what
   * Codex computes whatever path spelling led here. Anything it cannot confirm is a warning.
   */
  async verify(ctx): Promise<InstallPlan> {
    const bin = codexBin(ctx);
    if (!bin) return { changes: [], notes: [], warnings: [] };
    const cwd = ctx.scope === 'project' ? codexProjectDir(ctx) : ctx.projectDir;
    let listed;
    try {
      listed = await listHooksAside(bin, { env: ctx.env, cwd, home: codexHome(ctx), readFile: ctx.readFile });
    } catch (error) {
      return { changes: [], notes: [], warnings: [`could not check the trust entries with codex app-server (${(error as Error).message}); they were computed by Codex's rule but not confirmed, so Codex may skip the hooks: run install-hooks --write again once \`codex app-server\` works`] };
    }
    const hooksPath = codexHooksPath(ctx);
    const isOurs = oursFor(ctx);
    const ours = listed.filter((h) => isOurs(h.command) && typeof h.currentHash === 'string' && (h.sourcePath === undefined || realFile(h.sourcePath) === realFile(hooksPath)));
    const configPath = codexConfigPath(ctx);
    const before = ctx.readFile(configPath);
    const config = ctx.formats.toml(configPath, before);
    const state = stateOf(config);
    const fixed: string[] = [];
    for (const h of ours) {
      if (state[h.key]?.trusted_hash === h.currentHash) continue;
      config.upsertTable(['hooks', 'state', h.key], { trusted_hash: h.currentHash! }, TRUST_COMMENT);
      fixed.push(h.key);
    }
    const listedKeys = new Set(ours.map((h) => h.key));
    const hashes = new Set<unknown>([...ours.map((h) => h.currentHash), ...identities(ctx).map((h) => trustHash(h))]);
    const real = realFile(hooksPath);
    const stale = Object.keys(stateOf(config)).filter((key) => {
      const file = keyFile(key);
      return !listedKeys.has(key) && file !== undefined && hashes.has(stateOf(config)[key]?.trusted_hash) && realFile(file) === real;
    });
    for (const key of stale) config.removeTable(['hooks', 'state', key], TRUST_COMMENT);
    const notes: string[] = [];
    const warnings: string[] = [];
    if (ours.length === 0) warnings.push(`codex app-server lists no cordon hook for ${cwd}; Codex will not run them there${ctx.scope === 'project' ? ' (is the project trusted?)' : ''}`);
    else notes.push(`checked with codex app-server hooks/list: ${ours.length} cordon hook(s) listed, ${ours.filter((h) => h.trustStatus === 'trusted').length} trusted${fixed.length ? ` before cordon wrote the ${fixed.length} entr${fixed.length === 1 ? 'y' : 'ies'} it reported` : ''}`);
    if (fixed.length) notes.push(`codex app-server keyed or hashed ${fixed.length} cordon hook(s) differently from cordon's computation; their trust entries were written from hooks/list: ${fixed.join(', ')}`);
    if (stale.length) notes.push(`removed ${stale.length} trust entr${stale.length === 1 ? 'y' : 'ies'} of cordon hooks under keys Codex does not read: ${stale.join(', ')}`);
    return { changes: change(configPath, before, config.toString(), 'trust entries made exactly what codex app-server hooks/list reports'), notes, warnings };
  },
};
