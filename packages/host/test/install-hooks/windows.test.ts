import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { parse as parseJsonc } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookCommand, HookInstaller, InstallContext, InstallPlan } from '@cordon/plugin-api';
import { commandFromArgv, hookCommand } from '../../src/install-hooks/command.js';
import { isDirectory, putText, readText, whichIn } from '../../src/install-hooks/files.js';
import { configFormats } from '../../src/install-hooks/formats/index.js';
import { hookLists } from '../../src/install-hooks/hook-lists.js';
import { cmdCommand } from '../../src/install-hooks/quote/cmd.js';
import { posixCommand } from '../../src/install-hooks/quote/posix.js';
import { powershellCommand } from '../../src/install-hooks/quote/powershell.js';
import * as claude from '../../../../plugins/claude-code/src/dialect/install.js';
import * as codex from '../../../../plugins/codex/src/dialect/install.js';
import * as cursor from '../../../../plugins/cursor/src/dialect/install.js';
import * as gemini from '../../../../plugins/gemini/src/dialect/install.js';
import * as hermes from '../../../../plugins/hermes/src/dialect/install.js';
import { trustHash } from '../../../../plugins/codex/src/dialect/trust.js';

// install-hooks for Windows (platform win32): each dialect's installer, with the host's real
// editors, on real files, given the command of an npm install under a user named O'Neil and
// Node under "Program Files (x86)". What each agent's Windows shell makes of the command is
// checked in quote.test.ts and wine-cmd.test.ts; here: which form lands in which config, that
// a re-install changes nothing and replaces an older form, and that uninstall takes it all out.

const NODE = 'C:\\Program Files (x86)\\nodejs\\node.exe';
const RUN = "C:\\Users\\Ann O'Neil\\AppData\\Roaming\\npm\\node_modules\\@cordon\\host\\bin\\run.cjs";
const winCommand = (agent: string, argv0 = NODE, run = RUN): HookCommand => commandFromArgv([argv0, run, 'hook', '--agent', agent], false, 'win32');

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cordon-win-hooks-'));
  mkdirSync(join(root, 'home'));
  mkdirSync(join(root, 'project'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function ctx(command: HookCommand, overrides: Partial<InstallContext> = {}): InstallContext {
  return { scope: 'user', command, home: join(root, 'home'), projectDir: join(root, 'project'), env: {}, accept: false, formats: configFormats, hookLists, readFile: readText, isDirectory, which: () => undefined, ...overrides };
}

async function apply(plan: InstallPlan | Promise<InstallPlan>): Promise<InstallPlan> {
  const p = await plan;
  for (const c of p.changes) putText(c.path, c.after);
  return p;
}

const read = (path: string): string => readFileSync(join(root, 'home', path), 'utf8');
/** Every handler of a grouped `hooks` map (Claude Code, Codex, Gemini CLI). */
const grouped = (value: any): any[] => Object.values(value.hooks ?? {}).flatMap((groups: any) => groups.flatMap((g: any) => g.hooks));

/** Install, install again (no change), uninstall (nothing of cordon's left). */
async function roundTrip(installer: HookInstaller, c: InstallContext, handlers: () => any[]): Promise<void> {
  await apply(installer.install(c));
  expect((await installer.install(c)).changes, 'a second install changes nothing').toEqual([]);
  const un = await apply(installer.uninstall(c));
  expect(un.changes.reduce((n, ch) => n + (ch.cordonRemoved ?? 0), 0)).toBeGreaterThan(0);
  expect(handlers()).toEqual([]);
}

describe('install-hooks on Windows: the form each agent\'s shell reads', () => {
  it('Claude Code: the PowerShell form with "shell": "powershell" on every event; uninstall takes them out', async () => {
    const command = winCommand('claude-code');
    const c = ctx(command);
    const plan = await apply(claude.installer.install(c));
    expect(plan.notes.join('\n')).toContain('"shell": "powershell"');
    const handlers = grouped(JSON.parse(read('.claude/settings.json')));
    expect(handlers).toHaveLength(claude.CLAUDE_EVENTS.length);
    const ps = "& 'C:\\Program Files (x86)\\nodejs\\node.exe' 'C:\\Users\\Ann O''Neil\\AppData\\Roaming\\npm\\node_modules\\@cordon\\host\\bin\\run.cjs' hook --agent claude-code";
    expect(command.powershell).toBe(ps);
    for (const h of handlers) expect(h).toMatchObject({ type: 'command', command: ps, shell: 'powershell' });
    await roundTrip(claude.installer, c, () => grouped(JSON.parse(read('.claude/settings.json'))));
  });

  it('Claude Code: a re-install on Windows replaces the POSIX command of an older install, and keeps the user\'s own hook', async () => {
    const old = commandFromArgv([NODE, RUN, 'hook', '--agent', 'claude-code'], false, 'linux');
    await apply(claude.installer.install(ctx(old)));
    const mine = { type: 'command', command: 'C:\\tools\\guard.exe', shell: 'powershell' };
    const settings = JSON.parse(read('.claude/settings.json'));
    settings.hooks.PreToolUse.push({ matcher: 'Bash', hooks: [mine] });
    putText(join(root, 'home/.claude/settings.json'), JSON.stringify(settings, null, 2));
    const plan = await apply(claude.installer.install(ctx(winCommand('claude-code'))));
    expect(plan.changes[0]!.summary).toContain('removed');
    const handlers = grouped(JSON.parse(read('.claude/settings.json')));
    expect(handlers.filter((h) => h.command === old.shell)).toEqual([]);
    expect(handlers.filter((h) => h.shell === 'powershell' && h.command === winCommand('claude-code').powershell)).toHaveLength(claude.CLAUDE_EVENTS.length);
    expect(handlers).toContainEqual(mine);
  });

  it('Codex: the PowerShell form in command, trusted under the hash of exactly that string; uninstall removes hooks and trust', async () => {
    const command = winCommand('codex');
    const c = ctx(command);
    await apply(codex.installer.install(c));
    const hooks = JSON.parse(read('.codex/hooks.json'));
    for (const h of grouped(hooks)) expect(h).toMatchObject({ type: 'command', command: command.powershell });
    expect(grouped(hooks).some((h) => 'commandWindows' in h)).toBe(false);
    const state = (parseToml(read('.codex/config.toml')) as any).hooks.state as Record<string, { trusted_hash: string }>;
    const hooksPath = join(root, 'home/.codex/hooks.json');
    for (const { event, matcher, timeout } of codex.CODEX_EVENTS) {
      const label = event.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
      expect(state[`${hooksPath}:${label}:0:0`]?.trusted_hash, event).toBe(trustHash({ event, matcher, command: command.powershell, timeout }));
    }
    await roundTrip(codex.installer, c, () => grouped(JSON.parse(read('.codex/hooks.json'))));
    expect((parseToml(read('.codex/config.toml')) as any).hooks?.state ?? {}).toEqual({});
  });

  it('Gemini CLI: the PowerShell form (Gemini runs hooks with PowerShell on Windows)', async () => {
    const command = winCommand('gemini');
    const c = ctx(command);
    await apply(gemini.installer.install(c));
    const handlers = grouped(parseJsonc(read('.gemini/settings.json')));
    expect(handlers).toHaveLength(gemini.GEMINI_EVENTS.length);
    for (const h of handlers) expect(h).toMatchObject({ type: 'command', name: 'cordon', command: command.powershell });
    await roundTrip(gemini.installer, c, () => grouped(parseJsonc(read('.gemini/settings.json'))));
  });

  it('Hermes: the POSIX form, which its shlex.split reads on Windows too (no shell runs it)', async () => {
    const command = winCommand('hermes');
    const c = ctx(command, { accept: true });
    await apply(hermes.installer.install(c));
    const config = parseYaml(read('.hermes/config.yaml')) as any;
    for (const { event } of hermes.HERMES_HOOKS) expect(config.hooks[event]).toEqual([expect.objectContaining({ command: posixCommand(command.argv) })]);
    expect(JSON.parse(read('.hermes/shell-hooks-allowlist.json')).approvals).toHaveLength(hermes.HERMES_HOOKS.length);
    await roundTrip(hermes.installer, c, () => Object.values((parseYaml(read('.hermes/config.yaml')) as any)?.hooks ?? {}).flat());
  });

  it('Cursor: argv joined by spaces; a path with spaces is refused as on Unix', async () => {
    expect(() => cursor.installer.install(ctx(winCommand('cursor')))).toThrow(/splits hook commands on spaces/);
    const plain = winCommand('cursor', 'C:\\nodejs\\node.exe', 'C:\\Users\\ann\\AppData\\Roaming\\npm\\node_modules\\@cordon\\host\\bin\\run.cjs');
    const c = ctx(plain);
    await apply(cursor.installer.install(c));
    const hooks = JSON.parse(read('.cursor/hooks.json')).hooks;
    for (const { event } of cursor.CURSOR_HOOKS) expect(hooks[event]).toEqual([expect.objectContaining({ command: plain.argv.join(' ') })]);
    await roundTrip(cursor.installer, c, () => Object.values(JSON.parse(read('.cursor/hooks.json')).hooks ?? {}).flat());
  });

  it('plain Windows paths give a bare line, the same text for PowerShell and cmd.exe', () => {
    const plain = winCommand('codex', 'C:\\nodejs\\node.exe', 'C:\\Users\\ann\\AppData\\Roaming\\npm\\node_modules\\cordon\\bin\\run.cjs');
    expect(plain.powershell).toBe('C:\\nodejs\\node.exe C:\\Users\\ann\\AppData\\Roaming\\npm\\node_modules\\cordon\\bin\\run.cjs hook --agent codex');
  });

  it('every dialect recognises every form cordon writes or wrote, and no other agent\'s', () => {
    const dialects = { 'claude-code': claude, codex, cursor, gemini, hermes } as const;
    for (const [agent, mod] of Object.entries(dialects)) {
      const argv = [NODE, RUN, 'hook', '--agent', agent];
      const shim = ['C:\\Users\\Ann O\'Neil\\AppData\\Roaming\\npm\\cordon.cmd', 'hook', '--agent', agent];
      const forms = [posixCommand(argv), powershellCommand(argv), cmdCommand(argv), powershellCommand(shim), cmdCommand(shim), posixCommand(shim), `${NODE} ${RUN} hook --agent ${agent}`];
      for (const form of forms) expect(mod.isCordonCommand(form), `${agent}: ${form}`).toBe(true);
      for (const other of Object.keys(dialects).filter((a) => a !== agent)) expect(mod.isCordonCommand(powershellCommand([NODE, RUN, 'hook', '--agent', other])), `${agent} vs ${other}`).toBe(false);
      expect(mod.isCordonCommand("& 'C:\\tools\\guard.exe' --agent " + agent)).toBe(false);
    }
  });
});

describe('finding executables on Windows (PATHEXT)', () => {
  it('a bare name finds name.cmd / name.exe in PATHEXT order; elsewhere only the name itself', () => {
    const bin = join(root, 'bin');
    mkdirSync(bin);
    for (const f of ['claude.cmd', 'cordon.exe', 'cordon.cmd']) {
      writeFileSync(join(bin, f), '');
      chmodSync(join(bin, f), 0o755);
    }
    expect(whichIn('claude', bin, 'win32', '.COM;.EXE;.BAT;.CMD')).toBe(join(bin, 'claude.cmd'));
    expect(whichIn('cordon', bin, 'win32', '.COM;.EXE;.BAT;.CMD')).toBe(join(bin, 'cordon.exe'));
    expect(whichIn('cordon', bin, 'win32', '.CMD;.EXE')).toBe(join(bin, 'cordon.cmd'));
    expect(whichIn('claude.cmd', bin, 'win32', '.CMD')).toBe(join(bin, 'claude.cmd'));
    expect(whichIn('claude', bin, 'win32', undefined)).toBe(join(bin, 'claude.cmd'));
    expect(whichIn('claude', bin, 'linux', '.CMD')).toBeUndefined();
    const c = hookCommand('codex', 'cordon', { PATH: bin, PATHEXT: '.CMD' }, 'win32');
    expect(c.argv).toEqual([join(bin, 'cordon.cmd'), 'hook', '--agent', 'codex']);
    expect(c.fromFlag).toBe(true);
    expect(codex.isCordonCommand(c.powershell)).toBe(true);
  });
});
