import { isAbsolute, join } from 'node:path';
import { requireAbsoluteHome, type HookInstaller, type InstallContext, type InstallPlan } from '@cordon/plugin-api';

/**
 * What cordon registers in Claude Code (the Claude Code hooks reference; uncoalesced/cordon
 * missed PostToolUseFailure): the tool events with matcher `*` (PostToolUseFailure too: a failing tool fires it
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

/**
 * `cordon … hook --agent claude-code`, as any install wrote it: POSIX-quoted or not, the PowerShell form
 * (`& 'C:\…\node.exe' 'C:\…\run.cjs' hook --agent claude-code`) or the cmd.exe form (carets before quotes), with
 * `cordon`, `cordon.cmd`, `cordon.exe`, `cordon.ps1` or `bin/run.cjs` before `hook`.
 */
export function isCordonCommand(command: unknown): boolean {
  return typeof command === 'string' && /(^|[\s/\\'"])(cordon(\.(cmd|exe|ps1))?|run\.c?js)\^?['"]?\s+hook\s+--agent[\s=]\^?['"]?claude-code\^?['"]?\s*$/.test(command);
}

/**
 * The handler's `command` and `shell` for the platform. Elsewhere Claude Code runs a command hook
 * with `sh -c` (the POSIX form, no `shell` field). On Windows it would run it with Git Bash when
 * that is installed and PowerShell otherwise, so cordon names the shell: `"shell": "powershell"`
 * (Claude Code hooks reference: it then starts `pwsh.exe`, or Windows PowerShell 5.1's
 * `powershell.exe`) with the PowerShell form, which needs no Git Bash.
 */
export function claudeCommand(ctx: InstallContext): { readonly command: string; readonly shell?: 'powershell' } {
  return ctx.command.platform === 'win32' ? { command: ctx.command.powershell, shell: 'powershell' } : { command: ctx.command.shell };
}

/** `$CLAUDE_CONFIG_DIR/settings.json` (default `~/.claude`) for user scope, `<project>/.claude/settings.json` for project scope. */
export function claudeSettingsPath(ctx: InstallContext): string {
  if (ctx.scope === 'project') return join(ctx.projectDir, '.claude', 'settings.json');
  return join(claudeHome(ctx), 'settings.json');
}

/**
 * Claude Code's user config home: `$CLAUDE_CONFIG_DIR` when set and not empty, else `~/.claude`.
 * Claude Code takes the variable as it is (no `~` expansion, white space kept), so a relative
 * value names a directory below wherever Claude Code is started, not one file: it is refused.
 * @throws an error with code `CORDON_BAD_INPUT` for a `CLAUDE_CONFIG_DIR` that is not an absolute path.
 */
export function claudeHome(ctx: InstallContext): string {
  const value = ctx.env.CLAUDE_CONFIG_DIR;
  if (!value) return join(ctx.home, '.claude');
  return requireAbsoluteHome('CLAUDE_CONFIG_DIR', value, { agent: 'Claude Code', file: 'settings.json' });
}

function plan(path: string, before: string | undefined, after: string | undefined, summary: string, notes: string[], cordonRemoved?: number): InstallPlan {
  if (before === after) return { changes: [], notes };
  return { changes: [{ path, before, after, summary, ...(cordonRemoved !== undefined ? { cordonRemoved } : {}) }], notes };
}

/**
 * How Claude Code reads settings.json: strict JSON (a comment is an error), and a leading byte
 * order mark is read past (Claude Code 2.1.332 ran the hooks of such a file:
 * test/e2e/hooks/real-agents.test.ts), so cordon reads past it too and keeps it.
 */
const SETTINGS_JSON = { bom: true } as const;

/** Claude Code's settings.json writer. */
export const installer: HookInstaller = {
  // Installed when on PATH or its user config home exists; at project scope also when the project has a `.claude/`.
  detect: (ctx) => ctx.which('claude') !== undefined || (isAbsolute(ctx.env.CLAUDE_CONFIG_DIR || ctx.home) && ctx.isDirectory(claudeHome(ctx))) || (ctx.scope === 'project' && ctx.isDirectory(join(ctx.projectDir, '.claude'))),

  install(ctx) {
    const path = claudeSettingsPath(ctx);
    const before = ctx.readFile(path);
    const doc = ctx.formats.json(path, before, SETTINGS_JSON);
    const { command, shell } = claudeCommand(ctx);
    const removed: string[] = [];
    const present = ctx.hookLists.removeCommands(doc, { layout: 'grouped', isOurs: isCordonCommand, keep: command, removed });
    const added: string[] = [];
    for (const { event, matcher, timeout } of CLAUDE_EVENTS) {
      if (present.has(event)) continue;
      doc.append(['hooks', event], { ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command, ...(shell ? { shell } : {}), timeout }] });
      added.push(event);
    }
    const notes: string[] = [];
    if (shell) notes.push('on Windows the hooks name "shell": "powershell" (Claude Code then runs them with pwsh.exe or powershell.exe, no Git Bash needed); a Claude Code too old to know that field would run them with Git Bash, where they fail with exit 2 and block tool calls: update Claude Code before installing');
    if ((doc.value as { disableAllHooks?: unknown }).disableAllHooks === true) notes.push(`${path} sets "disableAllHooks": true, so Claude Code runs no hooks from it until that is removed`);
    return plan(path, before, doc.toString(), ctx.hookLists.summary(added, removed), notes);
  },

  uninstall(ctx) {
    const path = claudeSettingsPath(ctx);
    const before = ctx.readFile(path);
    if (before === undefined) return { changes: [], notes: [] };
    const doc = ctx.formats.json(path, before, SETTINGS_JSON);
    const removed: string[] = [];
    ctx.hookLists.removeCommands(doc, { layout: 'grouped', isOurs: isCordonCommand, removed });
    // Whether the file goes (install created it) or gets its original bytes back is the host's call (its install record).
    return plan(path, before, doc.toString(), ctx.hookLists.summary([], removed), [], removed.length);
  },
};
