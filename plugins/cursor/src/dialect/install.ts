import { join } from 'node:path';
import type { HookInstaller, InstallContext, InstallPlan } from '@cordon/plugin-api';
import { CURSOR_EVENTS } from './entry.js';

/**
 * What cordon registers in Cursor's native hooks.json (the Cursor hooks docs): flat
 * entries (no matcher) for the tool events, the failure event and the session events. Every one
 * is an event Cursor documents: one unknown event name voids the whole file.
 */
export const CURSOR_HOOKS: ReadonlyArray<{ readonly event: string; readonly timeout?: number }> = [
  { event: 'preToolUse', timeout: 30 },
  { event: 'postToolUse', timeout: 30 },
  { event: 'postToolUseFailure', timeout: 30 },
  { event: 'sessionStart' },
  { event: 'sessionEnd' },
];

/** The event some Cursor builds reject ("Unknown hook type"); left out once the user took it out. */
const SESSION_START = 'sessionStart';
/** The events cordon writes besides sessionStart: cordon in all of them is a whole install. */
const OTHER_EVENTS = ['preToolUse', 'postToolUse', 'postToolUseFailure', 'sessionEnd'];

/** Error code the host knows (catalogue `CONFIG_EDIT`): the config cannot be written safely. */
const CONFIG_EDIT = 'CORDON_CONFIG_EDIT';

/**
 * `cordon … hook --agent cursor`, as any install wrote it: POSIX-quoted or not, the PowerShell form
 * (`& 'C:\…\node.exe' 'C:\…\run.cjs' hook --agent cursor`) or the cmd.exe form (carets before quotes), with
 * `cordon`, `cordon.cmd`, `cordon.exe`, `cordon.ps1` or `bin/run.cjs` before `hook`.
 */
export function isCordonCommand(command: unknown): boolean {
  return typeof command === 'string' && /(^|[\s/\\'"])(cordon(\.(cmd|exe|ps1))?|run\.c?js)\^?['"]?\s+hook\s+--agent[\s=]\^?['"]?cursor\^?['"]?\s*$/.test(command);
}

/** `~/.cursor/hooks.json` for user scope, `<project>/.cursor/hooks.json` for project scope. */
export function cursorHooksPath(ctx: InstallContext): string {
  return ctx.scope === 'project' ? join(ctx.projectDir, '.cursor', 'hooks.json') : join(ctx.home, '.cursor', 'hooks.json');
}

/** Cursor's hooks.json writer. */
export const installer: HookInstaller = {
  // Installed when on PATH or `~/.cursor` exists; at project scope also when the project has a `.cursor/`.
  detect: (ctx) => ctx.which('cursor-agent') !== undefined || ctx.isDirectory(join(ctx.home, '.cursor')) || (ctx.scope === 'project' && ctx.isDirectory(join(ctx.projectDir, '.cursor'))),

  install(ctx): InstallPlan {
    const path = cursorHooksPath(ctx);
    // Cursor splits the command on whitespace without quoting, and a URL in it voids the file (the Cursor hooks docs).
    if (ctx.command.hasSpaces || ctx.command.argv.some((a) => /:\/\//.test(a))) {
      const fix = ctx.command.fromFlag
        ? `the --command path ${ctx.command.argv[0]} contains ${ctx.command.hasSpaces ? 'a space' : 'a URL'}; give a path without ${ctx.command.hasSpaces ? 'spaces' : 'one'}`
        : 'install cordon under a path without spaces or pass --command <path>';
      throw Object.assign(new Error(`Cursor splits hook commands on spaces without quoting, so the cordon command cannot contain spaces or URLs: ${ctx.command.argv.join(' ')}; ${fix}`), { code: CONFIG_EDIT });
    }
    const command = ctx.command.argv.join(' ');
    const before = ctx.readFile(path);
    const doc = ctx.formats.json(path, before);
    const created = before === undefined || (doc.value as { version?: unknown }).version === undefined;
    if (created) doc.set(['version'], 1);
    // A file holding cordon in every event it writes but sessionStart: the user took that one out,
    // as the note below says to where Cursor rejects it; it stays out. (A partial or narrower
    // install, cordon in some events only, is completed as before.)
    const withCordon = (event: string) => {
      const list = (doc.value as { hooks?: Record<string, unknown> }).hooks?.[event];
      return Array.isArray(list) && list.some((h) => { const c = (h as { command?: unknown } | null)?.command; return c === command || isCordonCommand(c); });
    };
    const sessionStartOut = before !== undefined && OTHER_EVENTS.every(withCordon) && !withCordon(SESSION_START);
    const removed: string[] = [];
    const present = ctx.hookLists.removeCommands(doc, { layout: 'flat', isOurs: isCordonCommand, keep: command, removed });
    const added: string[] = [];
    for (const { event, timeout } of CURSOR_HOOKS) {
      if (present.has(event) || (event === SESSION_START && sessionStartOut)) continue;
      doc.append(['hooks', event], { command, ...(timeout !== undefined ? { timeout } : {}) });
      added.push(event);
    }
    const notes: string[] = [];
    const hooks = (doc.value as { hooks?: Record<string, unknown> }).hooks ?? {};
    const unknown = Object.keys(hooks).filter((e) => !CURSOR_EVENTS.has(e));
    if (unknown.length) notes.push(`${path} names events Cursor does not document (${unknown.join(', ')}); one unknown event can make Cursor ignore the whole file`);
    const entry = JSON.stringify({ command });
    notes.push(
      sessionStartOut
        ? `sessionStart left out: ${path} holds cordon's other hooks but no cordon entry under "hooks"."sessionStart" (taken out for a Cursor build that rejects it); to put it back, add ${entry} to the "sessionStart" list under "hooks" in that file`
        : `some Cursor builds reject sessionStart ("Unknown hook type"); if Cursor reports that, delete the entry ${entry} from the "sessionStart" list under "hooks" in ${path} (and the "sessionStart" key if the list is left empty): tool calls are still recorded, and install-hooks leaves sessionStart out from then on`,
    );
    const after = doc.toString();
    return { changes: before === after ? [] : [{ path, before, after, summary: ctx.hookLists.summary(added, removed) }], notes };
  },

  uninstall(ctx): InstallPlan {
    const path = cursorHooksPath(ctx);
    const before = ctx.readFile(path);
    if (before === undefined) return { changes: [], notes: [] };
    const doc = ctx.formats.json(path, before);
    const removed: string[] = [];
    ctx.hookLists.removeCommands(doc, { layout: 'flat', isOurs: isCordonCommand, removed });
    // Whether the file goes (install created it) or gets its original bytes back is the host's call (its install record).
    const after = doc.toString();
    return { changes: before === after ? [] : [{ path, before, after, summary: ctx.hookLists.summary([], removed), cordonRemoved: removed.length }], notes: [] };
  },
};
