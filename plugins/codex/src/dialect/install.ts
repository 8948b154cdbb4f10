import { join, resolve } from 'node:path';
import type { ConfigChange, ConfigDocument, HookInstaller, InstallContext, InstallPlan, TomlDocument } from '@cordon/plugin-api';
import { listHooks } from './app-server.js';
import { trustHash, trustKey } from './trust.js';

/**
 * What cordon registers in Codex (research hook-dialects.md §2.1–§2.2): the tool events with
 * matcher `*`, and the session events. Timeouts are seconds; Codex clamps SessionEnd to 3 s.
 */
export const CODEX_EVENTS: ReadonlyArray<{ readonly event: string; readonly matcher?: string; readonly timeout: number }> = [
  { event: 'PreToolUse', matcher: '*', timeout: 30 },
  { event: 'PostToolUse', matcher: '*', timeout: 30 },
  { event: 'SessionStart', timeout: 30 },
  { event: 'SessionEnd', timeout: 3 },
];

/** Root keys Codex accepts in hooks.json; any other key makes it reject the whole file (research §2.1, live). */
const ROOT_KEYS = new Set(['description', 'hooks']);

/** Comment above each trust table cordon writes into config.toml. */
const TRUST_COMMENT = 'trust for the cordon hook (cordon install-hooks)';

/** `cordon … hook --agent codex`, as any install wrote it. */
export function isCordonCommand(command: unknown): boolean {
  return typeof command === 'string' && /(^|[\s/'"])(cordon|run\.c?js)['"]?\s+hook\s+--agent[\s=]['"]?codex['"]?\s*$/.test(command);
}

/** `$CODEX_HOME` (default `~/.codex`), absolute. */
export function codexHome(ctx: InstallContext): string {
  return resolve(ctx.env.CODEX_HOME || join(ctx.home, '.codex'));
}

/** hooks.json for the scope: `$CODEX_HOME/hooks.json` or `<project>/.codex/hooks.json`. */
export function codexHooksPath(ctx: InstallContext): string {
  return ctx.scope === 'project' ? join(ctx.projectDir, '.codex', 'hooks.json') : join(codexHome(ctx), 'hooks.json');
}

/** The user config.toml: the only layer that can hold hook trust (research §2.1). */
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
function handlers(value: unknown): Handler[] {
  const out: Handler[] = [];
  const hooks = (value as { hooks?: unknown })?.hooks;
  if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks)) return out;
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group: any, g) => {
      const list = Array.isArray(group?.hooks) ? group.hooks : [];
      list.forEach((h: any, i: number) => {
        if (typeof h?.command !== 'string') return;
        out.push({ event, group: g, index: i, matcher: group?.matcher, command: h.command, timeout: h.timeout, async: h.async, statusMessage: h.statusMessage, cordon: isCordonCommand(h.command) });
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
function retrust(toml: TomlDocument, path: string, before: Handler[], after: Handler[]): void {
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
  for (const key of removals) toml.removeTable(['hooks', 'state', key], TRUST_COMMENT);
  for (const m of moves) if (typeof m.hash === 'string') toml.upsertTable(['hooks', 'state', m.to], { trusted_hash: m.hash });
  for (const h of after.filter((x) => x.cordon)) {
    const key = trustKey(path, h.event, h.group, h.index);
    const hash = trustHash(h);
    if (key && hash) toml.upsertTable(['hooks', 'state', key], { trusted_hash: hash }, TRUST_COMMENT);
  }
}

function change(path: string, before: string | undefined, after: string | undefined, summary: string): ConfigChange[] {
  return before === after ? [] : [{ path, before, after, summary }];
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

/** Codex's hooks.json + config.toml trust writer. */
export const installer: HookInstaller = {
  // Installed when on PATH or its home exists; at project scope also when the project has a `.codex/`.
  detect: (ctx) => ctx.which('codex') !== undefined || ctx.isDirectory(codexHome(ctx)) || (ctx.scope === 'project' && ctx.isDirectory(join(ctx.projectDir, '.codex'))),

  install(ctx): InstallPlan {
    const hooksPath = codexHooksPath(ctx);
    const configPath = codexConfigPath(ctx);
    const hooksBefore = ctx.readFile(hooksPath);
    const configBefore = ctx.readFile(configPath);
    const doc = ctx.formats.json(hooksPath, hooksBefore);
    const config = ctx.formats.toml(configPath, configBefore);
    const command = ctx.command.shell;
    const before = handlers(doc.value);
    if (hooksBefore === undefined) doc.set(['description'], 'managed by cordon');
    const present = ctx.hookLists.removeCommands(doc, { layout: 'grouped', isOurs: isCordonCommand, keep: command });
    const added: string[] = [];
    for (const { event, matcher, timeout } of CODEX_EVENTS) {
      if (present.has(event)) continue;
      doc.append(['hooks', event], { ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command, timeout }] });
      added.push(event);
    }
    retrust(config, hooksPath, before, handlers(doc.value));
    const notes = notesFor(ctx, doc, config);
    // The hashes follow Codex's own rule (research hook-dialects.md §2.1); only a codex binary can confirm them.
    if (!ctx.which('codex')) notes.push('codex is not on PATH, so cordon could not ask Codex to confirm that it trusts these hooks: if Codex does not run them or asks you to review them, put codex on PATH and run this command again with --write');
    return {
      changes: [...change(hooksPath, hooksBefore, doc.toString(), `add cordon to ${added.join(', ') || 'nothing new'}`), ...change(configPath, configBefore, config.toString(), 'trust the cordon hooks ([hooks.state] trusted_hash)')],
      notes,
    };
  },

  uninstall(ctx): InstallPlan {
    const hooksPath = codexHooksPath(ctx);
    const configPath = codexConfigPath(ctx);
    const hooksBefore = ctx.readFile(hooksPath);
    if (hooksBefore === undefined) return { changes: [], notes: [] };
    const configBefore = ctx.readFile(configPath);
    const doc = ctx.formats.json(hooksPath, hooksBefore);
    const config = ctx.formats.toml(configPath, configBefore);
    const before = handlers(doc.value);
    ctx.hookLists.removeCommands(doc, { layout: 'grouped', isOurs: isCordonCommand });
    retrust(config, hooksPath, before, handlers(doc.value));
    // A hooks.json that install created and that now holds nothing but its description goes away.
    const left = doc.value as Record<string, unknown>;
    const empty = Object.keys(left).length === 0 || (Object.keys(left).length === 1 && left.description === 'managed by cordon');
    // Likewise a config.toml that held only cordon's trust entries.
    const configAfter = config.toString().trim() === '' && configBefore?.trim() ? undefined : config.toString();
    return {
      changes: [...change(hooksPath, hooksBefore, empty ? undefined : doc.toString(), 'remove the cordon hooks'), ...change(configPath, configBefore, configAfter, 'remove the trust of the cordon hooks')],
      notes: [],
    };
  },

  /**
   * Asks the installed Codex (`codex app-server` → `hooks/list`) for the hash of every cordon
   * hook it sees and rewrites any trust entry that differs, so a Codex that hashes differently
   * from research §2.1 still runs the hooks. Without a `codex` on PATH it only says so.
   */
  async verify(ctx): Promise<InstallPlan> {
    const bin = ctx.env.CORDON_CODEX_BIN || ctx.which('codex');
    if (!bin) return { changes: [], notes: [] };
    let listed;
    try {
      listed = await listHooks(bin, { env: ctx.env, cwd: ctx.projectDir });
    } catch (error) {
      return { changes: [], notes: [`could not check the trust entries with codex app-server (${(error as Error).message}); they were computed`] };
    }
    const ours = listed.filter((h) => isCordonCommand(h.command) && typeof h.currentHash === 'string');
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
    const notes =
      ours.length === 0
        ? [`codex app-server lists no cordon hook for ${ctx.projectDir}; Codex will not run them there (is the project trusted?)`]
        : fixed.length
          ? [`codex app-server hashed ${fixed.length} cordon hook(s) differently from cordon; their trust entries were rewritten from hooks/list: ${fixed.join(', ')}`]
          : [`checked with codex app-server hooks/list: ${ours.length} cordon hook(s) listed, ${ours.filter((h) => h.trustStatus === 'trusted').length} trusted, every trust entry matches`];
    return { changes: change(configPath, before, config.toString(), 'trust entries corrected from codex app-server hooks/list'), notes };
  },
};
