import { join } from 'node:path';
import { Flags } from '@oclif/core';
import { CordonCommand } from '../../cli/cordon-command.js';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { ensurePrivateDir, readRegularFileIfExists, writeFileAtomic } from '../../io/index.js';
import { runProbes } from '../../control/probe.js';
import { dropPluginIndex } from '../../plugins/plugin-index.js';
import { pluginInstallCommand } from '../../plugins/install-hint.js';
import { missingHookAgent } from '../../bus/hook-agents.js';
import { parseJsonText } from '../../util/json-syntax.js';

/** The settings file the `beforeToolCall` guard of @cordon/cgroup-linux reads. */
const GUARD_FILE = 'control.json';

/** What `cordon control guard --json` returns. */
export interface GuardReport {
  readonly file: string;
  /** Agents guarded after this command (written only with --write). */
  readonly guarded: string[];
  readonly written: boolean;
  /** Whether `cordon control probe` finds a backend that can enforce here; guarded calls run unguarded (and are recorded) when not. */
  readonly enforceable: boolean;
  /** `cordon control probe`'s reason when nothing can be enforced. */
  readonly reason: string | null;
  /** Agents named (not with --off) whose cordon hooks are in neither their user config nor this project's: nothing guards them until they are. */
  readonly unhooked: string[];
}

export default class ControlGuard extends CordonCommand {
  static override summary = "Make an agent's shell tool calls run under `cordon control run` (through its hook's rewrite field)";
  static override description = [
    'Switches the guard of @cordon/cgroup-linux on (or, with --off, off) for the agents named: on every shell tool call the',
    '`cordon hook` rewrites the command to `cordon control run -- bash -c <command>`, with the AGENT_RESOURCE_HINT=… the',
    "command starts with, through the agent's own rewrite field (Claude Code and Codex updatedInput, Gemini tool_input,",
    "Cursor updated_input). Install the agent's hooks first (`cordon install-hooks`): for an agent without them it says so on stderr. Without --write it only prints the change.",
  ].join(' ');

  static override examples = ['<%= config.bin %> <%= command.id %> --agent claude-code', '<%= config.bin %> <%= command.id %> --agent codex --agent gemini --write', '<%= config.bin %> <%= command.id %> --agent codex --off --write'];

  static override flags = {
    agent: Flags.string({ char: 'a', description: 'Agent whose shell calls to guard (repeatable; an installed agent: see `cordon info`)', multiple: true, required: true }),
    off: Flags.boolean({ description: 'Stop guarding these agents' }),
    write: Flags.boolean({ description: 'Write the setting (default: dry run)' }),
  };

  async run(): Promise<GuardReport> {
    const { flags } = await this.parse(ControlGuard);
    const host = await this.host();
    // An agent named as users know it: what install-hooks says of one it does not know, exit 2.
    for (const agent of flags.agent) if (!host.dialects.get(agent)) throw missingHookAgent(host.dialects, agent);
    // cgroup-linux taps beforeToolCall only while an agent is guarded, so its presence is told
    // by the plugin itself (applied), not by the tap.
    if (!host.applied.includes('cgroup-linux')) {
      throw new CordonError(ERROR_CODES.REGISTRY_MISSING, `the guard is part of @cordon/cgroup-linux, which is not installed: \`${pluginInstallCommand(['cgroup-linux'])}\``);
    }
    const file = join(host.paths.configDir, GUARD_FILE);
    let settings: { guard?: Record<string, boolean>; [key: string]: unknown } = {};
    const text = readRegularFileIfExists(file, { maxBytes: 1 << 20 });
    if (text !== undefined) {
      try {
        settings = parseJsonText(text.toString('utf8')) as typeof settings;
      } catch (error) {
        throw new CordonError(ERROR_CODES.CONFIG_UNPARSEABLE, `${file} is not JSON (${(error as Error).message}); it was left unchanged`, { details: { file } });
      }
    }
    const guard = { ...(settings.guard ?? {}) };
    for (const agent of flags.agent) {
      if (flags.off) delete guard[agent];
      else guard[agent] = true;
    }
    const guarded = Object.keys(guard).filter((a) => guard[a] === true).sort();
    if (flags.write) {
      ensurePrivateDir(host.paths.configDir);
      writeFileAtomic(file, `${JSON.stringify({ ...settings, guard }, null, 2)}\n`, { mode: 0o600 });
      // cgroup-linux taps beforeToolCall only while some agent is guarded: the hook's plugin
      // index must be taken again so the hook loads (or stops loading) it.
      dropPluginIndex(host.paths.cacheDir);
    }
    this.log(`${flags.write ? 'wrote' : 'would write'} ${file}: guarded agents ${guarded.join(', ') || 'none'}${flags.write ? '' : ' (dry run; add --write)'}`);
    // The guard rewrites calls in the hook: an agent without cordon's hooks is not guarded at all
    // (the help's "Install the agent's hooks first"). Said on stderr, naming the install.
    const unhooked = flags.off ? [] : await unhookedAgents(host, flags.agent);
    for (const agent of unhooked) {
      process.stderr.write(`cordon control guard: ${agent}'s hooks are not installed (neither in its user config nor in this project's), so its shell calls are not guarded until they are: \`cordon install-hooks --agent ${agent} --write\`\n`);
    }
    // Guarding where nothing can be enforced only adds a wrapper: say so (stderr), with probe's reason.
    const probe = await runProbes(host.probes.list());
    if (!probe.available && guarded.length) {
      process.stderr.write(
        `cordon control guard: nothing can be enforced on this machine (${probe.reason}): guarded calls will run unguarded, and be recorded, until \`cordon control probe\` says otherwise${probe.fix ? `; to enable: ${probe.fix}` : ''}\n`,
      );
    }
    return { file, guarded, written: flags.write, enforceable: probe.available, reason: probe.reason, unhooked };
  }
}

/**
 * The agents of `agents` whose cordon hooks are in neither their user config nor the current
 * directory's project config (install-hooks/state.ts `agentHookState`: plans computed, nothing written or
 * started). An agent that takes no hooks (Aider runs under `cordon wrap --shell-shim`) or whose
 * config cannot be read is not listed: `cordon doctor` says what is wrong there.
 */
async function unhookedAgents(host: Awaited<ReturnType<ControlGuard['host']>>, agents: readonly string[]): Promise<string[]> {
  const { agentHookState } = await import('../../install-hooks/state.js');
  const out: string[] = [];
  for (const agent of [...new Set(agents)]) {
    if (!host.dialects.get(agent)?.loadInstaller) continue;
    const states = [await agentHookState(host, agent, { scope: 'user' }), await agentHookState(host, agent, { scope: 'project' })];
    if (states.some((s) => s.kind === 'present' || s.kind === 'unreadable')) continue;
    out.push(agent);
  }
  return out;
}
