import type { HookInstaller, HookScope, InstallContext, InstallPlan } from '@cordon/plugin-api';
import type { CordonHost } from '../bus/host.js';
import { configProblem } from '../install-hooks/formats/unparseable.js';
import { readRemovedHooks } from '../install-hooks/removed-choice.js';
import { agentHookState } from '../install-hooks/state.js';
import { detectAgent } from '../install-hooks/detect.js';
import { safely } from '../util/safely.js';
import type { Finding } from './report.js';

/**
 * The row of an agent whose config could not be planned: a file that cannot be read or parsed
 * (repair or move it), or a setting that names no one file (`CORDON_BAD_INPUT` from the
 * installer: a relative `CLAUDE_CONFIG_DIR`, `GEMINI_CLI_HOME` or `HERMES_HOME`), whose fix is
 * the setting, not a file: that message already says how to set it.
 */
function unreadableFinding(check: string, error: unknown): Finding {
  if ((error as { code?: unknown } | null)?.code === 'CORDON_BAD_INPUT') {
    return { check, status: 'problem', message: `cannot locate the config: ${configProblem(error)}`, fix: 'correct that setting in the environment the agent and cordon start in, as the message says, then run doctor again' };
  }
  return { check, status: 'problem', message: `cannot read the config: ${configProblem(error)}`, fix: `repair or move the file it names (\`cordon install-hooks\` will not edit it until then), then run doctor again` };
}

/**
 * Per agent with a hook config and scope: are cordon's hooks installed and current (an install
 * would change nothing), does each installed command still start, does the agent accept them
 * (Codex's trust, as `codex app-server` `hooks/list` reports it; Hermes' consent allowlist), and
 * what an install would warn of (Codex's trust not confirmable without a codex binary: information).
 * An agent found here without cordon's hooks is a problem while no agent has them, and
 * information once one has; one whose hooks `uninstall-hooks` removed on purpose (user scope,
 * install-hooks/removed-choice.ts) is information saying so. Reads only: plans are computed, never written.
 */
export async function hookFindings(host: CordonHost, options: { scope: HookScope; projectDir?: string; env?: NodeJS.ProcessEnv }): Promise<Finding[]> {
  const env = options.env ?? process.env;
  const findings: Finding[] = [];
  let hooked = 0;
  // Agents whose hooks the user took out with `uninstall-hooks` (user scope): said, not failed.
  const removedOnPurpose = options.scope === 'user' ? readRemovedHooks(host.paths.configDir) : {};
  const agents = host.dialects
    .list()
    .filter((r) => r.entry.loadInstaller)
    .map((r) => r.entry.name);
  for (const agent of agents) {
    const check = `hooks:${agent}:${options.scope}`;
    const state = await agentHookState(host, agent, { scope: options.scope, projectDir: options.projectDir, env });
    if (state.kind === 'none') continue;
    if (state.kind === 'unreadable') {
      // Doctor edits nothing: install-hooks' "refusing to edit it" would not be true of doctor.
      findings.push(unreadableFinding(check, state.error));
      continue;
    }
    const { installer, ctx, plan } = state.planned;
    const install = `cordon install-hooks --agent ${agent}${options.scope === 'project' ? ' --scope project' : ''} --write`;
    // No hook command of cordon's left, only leftovers of them (Codex trust entries in config.toml
    // for hooks taken out of hooks.json): the hooks are missing, and an install puts them back.
    const leftovers = state.kind === 'present' && state.commands.length === 0 ? state.removal.changes.filter((c) => (c.cordonRemoved ?? 0) > 0).map((c) => c.path) : undefined;
    if (state.kind === 'absent' || leftovers) {
      // A project without cordon's hooks is the usual case; only the user scope speaks for the agent.
      if (options.scope === 'project') continue;
      const left = leftovers?.length ? ` (only leftover entries of them remain, in ${leftovers.join(', ')}; the install tidies them)` : '';
      const removed = removedOnPurpose[agent];
      if (removed) {
        findings.push({ check, status: 'info', message: `hooks removed on purpose (\`cordon uninstall-hooks\`, ${removed.removed_at}); \`${install}\` puts them back`, details: { removed_on_purpose: true, removed_at: removed.removed_at } });
        continue;
      }
      const { detected, why } = await safely(() => detectAgent(installer, ctx), { detected: false, why: '' });
      const looked = why ? ` (${why})` : '';
      findings.push(
        detected
          ? { check, status: 'problem', message: `${agent} is in use here${looked} but cordon's hooks are missing from its config${left}`, fix: install, details: { missing: true } }
          : { check, status: 'info', message: `${agent} not found here${looked} and no cordon hooks installed${left}` },
      );
      continue;
    }
    hooked++;
    // The files holding cordon's hooks, for rows that name them (index.ts: hooks at both scopes).
    const configs = state.removal.changes.filter((c) => (c.cordonRemoved ?? 0) > 0).map((c) => c.path);
    for (const b of state.broken) {
      findings.push({ check, status: 'problem', message: `the hook command in ${b.path} ${b.why}`, fix: install, details: { path: b.path, installed: true, configs } });
    }
    if (!state.current) {
      findings.push({ check, status: 'problem', message: `cordon's hooks are installed but stale: an install would change ${plan.changes.map((c) => c.path).join(', ')}`, fix: install, details: { paths: plan.changes.map((c) => c.path), installed: true, configs } });
    } else if (state.broken.length === 0) {
      findings.push({ check, status: 'ok', message: 'hooks installed and current', details: { installed: true, configs } });
    }
    // What install warns of is not a failure (docs/hooks.md: Codex without a codex binary gets
    // trust entries computed by Codex's rule, not confirmed), but the row must not read as verified.
    const healthy = state.current && state.broken.length === 0;
    for (const warning of plan.warnings ?? []) findings.push({ check, status: 'info', message: `${healthy ? 'hooks installed and current, but ' : ''}${warning}`, details: { installed: true, configs, unverified: true } });
    findings.push(...(await acceptance(agent, check, installer, ctx, plan, install)));
  }
  // Cordon hooked into no agent at all is a problem; once it is in one, another agent merely
  // installed here (an old home directory, a CLI tried once) is the user's choice, said, not failed.
  if (hooked === 0) return findings;
  return findings.map((f) => (f.details?.missing === true && f.status === 'problem' ? { ...f, status: 'info' as const, message: `${f.message} (cordon sees none of its tool calls)` } : f));
}

/** Whether the agent will run the installed hooks: Codex's trust entries, Hermes' consent. */
async function acceptance(agent: string, check: string, installer: HookInstaller, ctx: InstallContext, plan: InstallPlan, install: string): Promise<Finding[]> {
  const out: Finding[] = [];
  if (installer.verify) {
    const verified = await safely(() => installer.verify!(ctx, plan), undefined);
    if (!verified) out.push({ check, status: 'problem', message: `could not ask ${agent} whether it accepts the hooks`, fix: install });
    else {
      for (const warning of verified.warnings ?? []) out.push({ check, status: 'problem', message: warning, fix: install });
      if (verified.changes.length) out.push({ check, status: 'problem', message: `${agent} does not trust every cordon hook (it silently skips untrusted hooks)`, fix: install });
      for (const note of verified.notes) out.push({ check, status: 'ok', message: note });
    }
  }
  if (agent === 'hermes') {
    const consented = await safely(() => installer.install({ ...ctx, accept: true }), undefined);
    if (consented && consented.changes.length > plan.changes.length) {
      out.push({ check, status: 'problem', message: 'Hermes has not recorded consent for cordon\'s hooks: a run without a terminal skips them', fix: `${install} --accept` });
    }
  }
  return out;
}
