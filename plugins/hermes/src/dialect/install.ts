import { join } from 'node:path';
import { requireAbsoluteHome, type ConfigChange, type HookInstaller, type InstallContext, type InstallPlan } from '@cordon/plugin-api';

/**
 * What cordon registers in Hermes (the Hermes hooks docs): the tool events and the
 * session boundaries, where the session ends at `on_session_finalize` (`on_session_end` fires
 * after every turn). Timeouts are seconds (Hermes clamps them to 300).
 */
export const HERMES_HOOKS: ReadonlyArray<{ readonly event: string; readonly timeout?: number }> = [
  { event: 'pre_tool_call', timeout: 30 },
  { event: 'post_tool_call', timeout: 30 },
  { event: 'on_session_start', timeout: 30 },
  { event: 'on_session_finalize', timeout: 30 },
];

/**
 * `cordon … hook --agent hermes`, as any install wrote it: POSIX-quoted or not, the PowerShell form
 * (`& 'C:\…\node.exe' 'C:\…\run.cjs' hook --agent hermes`) or the cmd.exe form (carets before quotes), with
 * `cordon`, `cordon.cmd`, `cordon.exe`, `cordon.ps1` or `bin/run.cjs` before `hook`.
 */
export function isCordonCommand(command: unknown): boolean {
  return typeof command === 'string' && /(^|[\s/\\'"])(cordon(\.(cmd|exe|ps1))?|run\.c?js)\^?['"]?\s+hook\s+--agent[\s=]\^?['"]?hermes\^?['"]?\s*$/.test(command);
}

/**
 * Hermes' profile home as Hermes computes it (hermes_constants.py `get_process_hermes_home`):
 * `HERMES_HOME` with surrounding white space stripped, when that leaves anything; else
 * `~/.hermes` followed by `HERMES_DATA_DIR_SUFFIX` (empty by default). Hermes takes the value
 * as a path as it is: `~` is not expanded, and a relative path is read against the directory
 * Hermes is started in. Such a value is refused here, since the config.yaml it names depends
 * on where Hermes starts (a `~` directory created under the current one).
 * @throws an error with code `CORDON_BAD_INPUT` for a `HERMES_HOME` that is not an absolute path.
 */
export function hermesHome(ctx: InstallContext): string {
  const value = (ctx.env.HERMES_HOME ?? '').trim();
  if (value === '') return join(ctx.home, `.hermes${ctx.env.HERMES_DATA_DIR_SUFFIX ?? ''}`);
  const words = { agent: 'Hermes', file: 'config.yaml', tilde: 'Hermes does not expand "~" in HERMES_HOME: it reads it as a folder named "~"' };
  return requireAbsoluteHome('HERMES_HOME', value, words, ctx.env.HERMES_HOME);
}

type Approval = { event?: unknown; command?: unknown };

/**
 * Edits Hermes' consent allowlist (`shell-hooks-allowlist.json`, `{"approvals":[{event, command}]}`):
 * adds an approval for each cordon (event, command) pair, or removes cordon's approvals.
 */
function allowlistChange(ctx: InstallContext, command: string | undefined): ConfigChange[] {
  const path = join(hermesHome(ctx), 'shell-hooks-allowlist.json');
  const before = ctx.readFile(path);
  if (before === undefined && command === undefined) return [];
  const doc = ctx.formats.json(path, before);
  const approvals = (): Approval[] => {
    const list = (doc.value as { approvals?: unknown }).approvals;
    return Array.isArray(list) ? (list as Approval[]) : [];
  };
  let removed = 0;
  for (let i = approvals().length - 1; i >= 0; i--) {
    const a = approvals()[i]!;
    if (isCordonCommand(a?.command) && (command === undefined || a.command !== command)) {
      doc.remove(['approvals', i]);
      removed++;
    }
  }
  if (command !== undefined) {
    for (const { event } of HERMES_HOOKS) {
      if (!approvals().some((a) => a?.event === event && a.command === command)) doc.append(['approvals'], { event, command });
    }
  }
  const after = doc.toString();
  if (before === after) return [];
  return [{ path, before, after, summary: command === undefined ? "remove cordon's approvals" : 'approve the cordon hooks (--accept)', cordonRemoved: removed }];
}

/** Why Hermes may not run the hooks yet, and how to get past its consent gate. */
function consentNote(ctx: InstallContext): string {
  return [
    'Hermes asks for consent before it runs a new (event, command) hook for the first time, in a terminal;',
    'a run without a terminal skips hooks not yet approved unless it is started with --accept-hooks, HERMES_ACCEPT_HOOKS=1,',
    'or hooks_auto_accept: true in config.yaml.',
    `To approve cordon's hooks now, rerun with --write --accept (it records them in ${join(hermesHome(ctx), 'shell-hooks-allowlist.json')}),`,
    'or approve them when Hermes asks (`hermes hooks list` shows them).',
  ].join(' ');
}

/** Why `--scope project` does nothing for Hermes (the Hermes hooks docs: hooks live only in a profile's config.yaml). */
const NO_PROJECT_HOOKS = 'Hermes has no project-level hooks (only per-profile config.yaml); use --scope user';

/** Hermes' config.yaml writer (comments kept) and, with --accept, its consent allowlist. */
export const installer: HookInstaller = {
  // A HERMES_HOME that hermesHome refuses is no directory found here; naming the agent says why.
  detect: (ctx) => {
    if (ctx.which('hermes') !== undefined) return true;
    let home: string;
    try {
      home = hermesHome(ctx);
    } catch {
      return false;
    }
    return ctx.isDirectory(home);
  },

  install(ctx): InstallPlan {
    if (ctx.scope === 'project') return { changes: [], notes: [], skipped: NO_PROJECT_HOOKS };
    const path = join(hermesHome(ctx), 'config.yaml');
    const before = ctx.readFile(path);
    const doc = ctx.formats.yaml(path, before);
    const command = ctx.command.shell;
    const removed: string[] = [];
    const present = ctx.hookLists.removeCommands(doc, { layout: 'flat', isOurs: isCordonCommand, keep: command, removed });
    const added: string[] = [];
    for (const { event, timeout } of HERMES_HOOKS) {
      if (present.has(event)) continue;
      doc.append(['hooks', event], { command, ...(timeout !== undefined ? { timeout } : {}) });
      added.push(event);
    }
    const after = doc.toString();
    const changes: ConfigChange[] = before === after ? [] : [{ path, before, after, summary: ctx.hookLists.summary(added, removed) }];
    if (ctx.accept) changes.push(...allowlistChange(ctx, command));
    const notes = ctx.accept ? [] : [consentNote(ctx)];
    if (ctx.env.HERMES_SAFE_MODE === '1') notes.push('HERMES_SAFE_MODE=1 is set here: Hermes runs no hooks while it is');
    return { changes, notes };
  },

  uninstall(ctx): InstallPlan {
    if (ctx.scope === 'project') return { changes: [], notes: [], skipped: NO_PROJECT_HOOKS };
    const path = join(hermesHome(ctx), 'config.yaml');
    const before = ctx.readFile(path);
    const changes: ConfigChange[] = [];
    if (before !== undefined) {
      const doc = ctx.formats.yaml(path, before);
      const removed: string[] = [];
      ctx.hookLists.removeCommands(doc, { layout: 'flat', isOurs: isCordonCommand, removed });
      const after = doc.toString();
      // Whether the file goes (install created it) or gets its original bytes back is the host's call (its install record).
      if (after !== before) changes.push({ path, before, after, summary: ctx.hookLists.summary([], removed), cordonRemoved: removed.length });
    }
    changes.push(...allowlistChange(ctx, undefined));
    return { changes, notes: [] };
  },
};
