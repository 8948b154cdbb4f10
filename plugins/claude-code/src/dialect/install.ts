import { join } from 'node:path';
import type { ConfigDocument, HookInstaller, InstallContext, InstallPlan } from '@cordon/plugin-api';

/**
 * What cordon registers in Claude Code (research hook-dialects.md §1.1–§1.2, cordon-resource.md
 * A.12 #2): the tool events with matcher `*` (PostToolUseFailure too: a failing tool fires it
 * instead of PostToolUse), and the session events. Timeouts are seconds; a larger SessionEnd
 * timeout also raises Claude's short SessionEnd budget (1.5 s by default).
 */
export const CLAUDE_EVENTS: ReadonlyArray<{ readonly event: string; readonly matcher?: string; readonly timeout: number }> = [
  { event: 'PreToolUse', matcher: '*', timeout: 30 },
  { event: 'PostToolUse', matcher: '*', timeout: 30 },
  { event: 'PostToolUseFailure', matcher: '*', timeout: 30 },
  { event: 'SessionStart', timeout: 30 },
  { event: 'SessionEnd', timeout: 10 },
];

/** `cordon … hook --agent claude-code`, as any install wrote it (any path to cordon, quoted or not). */
export function isCordonCommand(command: unknown): boolean {
  return typeof command === 'string' && /(^|[\s/'"])(cordon|run\.js)['"]?\s+hook\s+--agent[\s=]['"]?claude-code['"]?\s*$/.test(command);
}

/** `$CLAUDE_CONFIG_DIR/settings.json` (default `~/.claude`) for user scope, `<project>/.claude/settings.json` for project scope. */
export function claudeSettingsPath(ctx: InstallContext): string {
  if (ctx.scope === 'project') return join(ctx.projectDir, '.claude', 'settings.json');
  return join(ctx.env.CLAUDE_CONFIG_DIR || join(ctx.home, '.claude'), 'settings.json');
}

type Group = { matcher?: unknown; hooks?: unknown };

function groupsOf(doc: ConfigDocument, event: string): Group[] {
  const hooks = (doc.value as { hooks?: Record<string, unknown> }).hooks;
  const list = hooks && typeof hooks === 'object' ? hooks[event] : undefined;
  return Array.isArray(list) ? (list as Group[]) : [];
}

const handlersOf = (group: Group): Array<{ command?: unknown }> => (Array.isArray(group?.hooks) ? (group.hooks as Array<{ command?: unknown }>) : []);

/**
 * Removes every cordon handler except one whose command is `keep`; drops the groups, event lists
 * and `hooks` map it leaves empty. Returns whether a handler with command `keep` remains.
 */
function removeCordon(doc: ConfigDocument, keep: string | undefined): Set<string> {
  const kept = new Set<string>();
  const hooks = (doc.value as { hooks?: Record<string, unknown> }).hooks;
  if (!hooks || typeof hooks !== 'object') return kept;
  for (const event of Object.keys(hooks)) {
    const groups = groupsOf(doc, event);
    for (let g = groups.length - 1; g >= 0; g--) {
      const handlers = handlersOf(groups[g]!);
      for (let h = handlers.length - 1; h >= 0; h--) {
        const command = handlers[h]!.command;
        if (!isCordonCommand(command)) continue;
        if (keep !== undefined && command === keep && !kept.has(event)) {
          kept.add(event);
          continue;
        }
        if (handlers.length === 1) doc.remove(['hooks', event, g]);
        else doc.remove(['hooks', event, g, 'hooks', h]);
        handlers.splice(h, 1);
      }
    }
    if (groupsOf(doc, event).length === 0) doc.remove(['hooks', event]);
  }
  const left = (doc.value as { hooks?: Record<string, unknown> }).hooks;
  if (left && typeof left === 'object' && Object.keys(left).length === 0) doc.remove(['hooks']);
  return kept;
}

function plan(path: string, before: string | undefined, after: string | undefined, summary: string, notes: string[]): InstallPlan {
  if (before === after) return { changes: [], notes };
  return { changes: [{ path, before, after, summary }], notes };
}

/** Claude Code's settings.json writer. */
export const installer: HookInstaller = {
  detect: (ctx) => ctx.which('claude') !== undefined || ctx.readFile(claudeSettingsPath(ctx)) !== undefined,

  install(ctx) {
    const path = claudeSettingsPath(ctx);
    const before = ctx.readFile(path);
    const doc = ctx.formats.json(path, before);
    const command = ctx.command.shell;
    const present = removeCordon(doc, command);
    const added: string[] = [];
    for (const { event, matcher, timeout } of CLAUDE_EVENTS) {
      if (present.has(event)) continue;
      doc.append(['hooks', event], { ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command, timeout }] });
      added.push(event);
    }
    const notes: string[] = [];
    if ((doc.value as { disableAllHooks?: unknown }).disableAllHooks === true) notes.push(`${path} sets "disableAllHooks": true, so Claude Code runs no hooks from it until that is removed`);
    return plan(path, before, doc.toString(), `add cordon to ${added.join(', ') || 'nothing new'}`, notes);
  },

  uninstall(ctx) {
    const path = claudeSettingsPath(ctx);
    const before = ctx.readFile(path);
    if (before === undefined) return { changes: [], notes: [] };
    const doc = ctx.formats.json(path, before);
    removeCordon(doc, undefined);
    // A settings file left empty (as install created it) goes away.
    const empty = Object.keys(doc.value as object).length === 0;
    return plan(path, before, empty ? undefined : doc.toString(), 'remove the cordon hooks', []);
  },
};
