import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './cli.js';

/** Agents whose real CLI the end-to-end tests drive (names are cordon's plugin names). */
export type AgentName = 'claude-code' | 'codex' | 'gemini';

/** One row of `scripts/agents.json`, the pin table `scripts/install-agents.sh` installs from. */
export interface AgentPin {
  /** npm package, e.g. `@openai/codex`. */
  readonly package: string;
  /** Exact version installed. */
  readonly version: string;
  /** Name of the executable under `node_modules/.bin`. */
  readonly bin: string;
}

/** The pinned versions (the ones test/fixtures/hook-payloads was captured with). */
export const AGENT_PINS: Readonly<Record<AgentName, AgentPin>> = JSON.parse(readFileSync(join(REPO_ROOT, 'scripts/agents.json'), 'utf8'));

/** `$CORDON_AGENTS_DIR`, else `<repo>/.cache/agents`: where `scripts/install-agents.sh` installs. */
export function agentsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CORDON_AGENTS_DIR || join(REPO_ROOT, '.cache/agents');
}

/** Where one agent is installed: its directory and its executable (which may not exist yet). */
export interface AgentInstall {
  readonly name: AgentName;
  readonly version: string;
  /** `<agentsDir>/<agent>-<version>`. */
  readonly dir: string;
  /** Absolute path of the executable (`…/node_modules/.bin/<bin>`). */
  readonly bin: string;
}

/** The install location of `name` (no check that it is there; see {@link requireAgent}). */
export function agentInstall(name: AgentName, env: NodeJS.ProcessEnv = process.env): AgentInstall {
  const pin = AGENT_PINS[name];
  const dir = join(agentsDir(env), `${name}-${pin.version}`);
  return { name, version: pin.version, dir, bin: join(dir, 'node_modules/.bin', pin.bin) };
}

/**
 * The installed agent, or a thrown error that says how to install it. Tests call this instead of
 * skipping: an end-to-end test without its agent fails loudly (`npm test` runs
 * `scripts/test-prepare.sh`, which installs them).
 */
export function requireAgent(name: AgentName, env: NodeJS.ProcessEnv = process.env): AgentInstall {
  const install = agentInstall(name, env);
  try {
    accessSync(install.bin, constants.X_OK);
    accessSync(join(install.dir, '.complete'));
  } catch {
    throw new Error(
      `${name} ${install.version} is not installed at ${install.bin}; run \`bash scripts/install-agents.sh\` ` +
        `(npm test does it through scripts/test-prepare.sh; CORDON_AGENTS_DIR moves the cache)`,
    );
  }
  return install;
}
