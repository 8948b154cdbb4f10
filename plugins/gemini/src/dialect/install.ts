import { isAbsolute, join } from 'node:path';
import { requireAbsoluteHome, type HookInstaller, type InstallContext, type InstallPlan } from '@cordon/plugin-api';

/**
 * What cordon registers in Gemini CLI (the Gemini CLI hooks reference): BeforeTool
 * and AfterTool for every tool, SessionStart and SessionEnd; timeouts in **milliseconds**; every
 * handler named `cordon` so users can list it or disable it (`hooksConfig.disabled`).
 */
export const GEMINI_EVENTS: ReadonlyArray<{ readonly event: string; readonly matcher?: string; readonly timeout: number }> = [
  { event: 'BeforeTool', matcher: '*', timeout: 30_000 },
  { event: 'AfterTool', matcher: '*', timeout: 30_000 },
  { event: 'SessionStart', timeout: 30_000 },
  { event: 'SessionEnd', timeout: 10_000 },
];

/** Handler name cordon writes. */
export const HOOK_NAME = 'cordon';

/**
 * `cordon … hook --agent gemini`, as any install wrote it: POSIX-quoted or not, the PowerShell form
 * (`& 'C:\…\node.exe' 'C:\…\run.cjs' hook --agent gemini`) or the cmd.exe form (carets before quotes), with
 * `cordon`, `cordon.cmd`, `cordon.exe`, `cordon.ps1` or `bin/run.cjs` before `hook`.
 */
export function isCordonCommand(command: unknown): boolean {
  return typeof command === 'string' && /(^|[\s/\\'"])(cordon(\.(cmd|exe|ps1))?|run\.c?js)\^?['"]?\s+hook\s+--agent[\s=]\^?['"]?gemini\^?['"]?\s*$/.test(command);
}

/**
 * The handler's command for the platform: Gemini CLI runs hook commands with `bash -c`, and on
 * Windows with PowerShell (`pwsh`/`powershell.exe -NoProfile -Command`, google-gemini/gemini-cli
 * `getShellConfiguration`), so there it gets the PowerShell form.
 */
export function geminiCommand(ctx: InstallContext): string {
  return ctx.command.platform === 'win32' ? ctx.command.powershell : ctx.command.shell;
}

/**
 * Gemini CLI's user config directory: `$GEMINI_CLI_HOME/.gemini` when that variable is set and not
 * empty, else `~/.gemini` (gemini-cli `packages/core/src/utils/paths.ts` `homedir()`, which returns
 * the variable as it is, and `Storage.getGlobalGeminiDir()`, which joins `.gemini` to it). Gemini
 * reads a relative value (`~` included, which it does not expand) against the directory it is
 * started in, so such a value names no one file and is refused.
 * @throws an error with code `CORDON_BAD_INPUT` for a `GEMINI_CLI_HOME` that is not an absolute path.
 */
export function geminiUserDir(ctx: InstallContext): string {
  const value = ctx.env.GEMINI_CLI_HOME;
  if (!value) return join(ctx.home, '.gemini');
  return join(requireAbsoluteHome('GEMINI_CLI_HOME', value, { agent: 'Gemini CLI', starts: 'Gemini', file: 'settings.json' }), '.gemini');
}

/**
 * Where Gemini CLI keeps its trusted folders, for the project-scope note: `<user dir>/trustedFolders.json`,
 * or, with a `GEMINI_CLI_HOME` that names no one directory (which the project's own file does not
 * depend on, so a project install goes on), that file named in words.
 */
function trustedFoldersFile(ctx: InstallContext): string {
  try {
    return join(geminiUserDir(ctx), 'trustedFolders.json');
  } catch {
    return `trustedFolders.json in Gemini CLI's user directory (.gemini under GEMINI_CLI_HOME, which is ${JSON.stringify(ctx.env.GEMINI_CLI_HOME)}: not an absolute path)`;
  }
}

/** `<user dir>/settings.json` ({@link geminiUserDir}) for user scope, `<project>/.gemini/settings.json` for project scope. */
export function geminiSettingsPath(ctx: InstallContext): string {
  return ctx.scope === 'project' ? join(ctx.projectDir, '.gemini', 'settings.json') : join(geminiUserDir(ctx), 'settings.json');
}

function plan(path: string, before: string | undefined, after: string | undefined, summary: string, notes: string[], cordonRemoved?: number): InstallPlan {
  if (before === after) return { changes: [], notes };
  return { changes: [{ path, before, after, summary, ...(cordonRemoved !== undefined ? { cordonRemoved } : {}) }], notes };
}

/** Gemini CLI's settings.json writer (JSON with comments kept: Gemini accepts JSONC settings). */
export const installer: HookInstaller = {
  // Installed when on PATH or its user directory exists; at project scope also when the project has a `.gemini/`.
  detect: (ctx) => ctx.which('gemini') !== undefined || (isAbsolute(ctx.env.GEMINI_CLI_HOME || ctx.home) && ctx.isDirectory(geminiUserDir(ctx))) || (ctx.scope === 'project' && ctx.isDirectory(join(ctx.projectDir, '.gemini'))),

  install(ctx) {
    const path = geminiSettingsPath(ctx);
    const before = ctx.readFile(path);
    const doc = ctx.formats.json(path, before, { comments: true });
    const command = geminiCommand(ctx);
    const removed: string[] = [];
    const present = ctx.hookLists.removeCommands(doc, { layout: 'grouped', isOurs: isCordonCommand, keep: command, removed });
    const added: string[] = [];
    for (const { event, matcher, timeout } of GEMINI_EVENTS) {
      if (present.has(event)) continue;
      doc.append(['hooks', event], { ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', name: HOOK_NAME, command, timeout }] });
      added.push(event);
    }
    const notes: string[] = [];
    const config = (doc.value as { hooksConfig?: { enabled?: unknown; disabled?: unknown } }).hooksConfig;
    if (config?.enabled === false) notes.push(`${path} sets hooksConfig.enabled to false: Gemini CLI runs no hooks until it is true`);
    if (Array.isArray(config?.disabled) && config.disabled.some((d) => d === HOOK_NAME || d === command)) notes.push(`${path} lists "${HOOK_NAME}" in hooksConfig.disabled: remove it there for the hooks to run`);
    if (ctx.scope === 'project') notes.push(`Gemini CLI runs project hooks only in a trusted folder (headless runs: --skip-trust, GEMINI_CLI_TRUST_WORKSPACE=true, or ${trustedFoldersFile(ctx)})`);
    return plan(path, before, doc.toString(), ctx.hookLists.summary(added, removed), notes);
  },

  uninstall(ctx) {
    const path = geminiSettingsPath(ctx);
    const before = ctx.readFile(path);
    if (before === undefined) return { changes: [], notes: [] };
    const doc = ctx.formats.json(path, before, { comments: true });
    const removed: string[] = [];
    ctx.hookLists.removeCommands(doc, { layout: 'grouped', isOurs: isCordonCommand, removed });
    // Whether the file goes (install created it) or gets its original bytes back is the host's call (its install record).
    return plan(path, before, doc.toString(), ctx.hookLists.summary([], removed), [], removed.length);
  },
};
