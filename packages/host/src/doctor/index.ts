import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { HookScope } from '@cordon/plugin-api';
import type { CordonHost } from '../bus/host.js';
import { activityFindings, logFindings, samplerFindings } from './activity.js';
import { hookFindings } from './hooks.js';
import { bothScopesProblem } from '../install-hooks/both-scopes.js';
import { doctorReport, type DoctorReport, type Finding } from './report.js';
import { controlFinding, nodeFinding, pluginFindings, sqliteFinding, telemetryStoreFinding } from './runtime.js';
import { dataPackageProblem } from '../plugins/data-package.js';
import { listedPluginProblems } from '../plugins/listed-plugins.js';

export { formatDoctorReport, type DoctorReport, type Finding } from './report.js';

/** Options of {@link runDoctor}. */
export interface DoctorOptions {
  /** Scopes whose hook configs are checked (default: `user`, and `project` for `projectDir`). */
  readonly scopes?: readonly HookScope[];
  /** Project root for the project scope (default: cwd). */
  readonly projectDir?: string;
  /** Installed plugin packages and versions, as oclif lists them. */
  readonly packages: ReadonlyArray<{ readonly name: string; readonly version: string }>;
  readonly env?: NodeJS.ProcessEnv;
  readonly now?: number;
}

/**
 * A problem for each agent whose cordon hooks are in both its user config and this project's
 * (`details.installed` on both scopes' rows): it runs both, so each call counts twice. Filed
 * under the project's row, which then reads as one `!!` row (report.ts folds a check's rows).
 */
function bothScopes(hooks: readonly Finding[], projectDir: string | undefined): Finding[] {
  const installedAt = (scope: HookScope) => hooks.filter((f) => f.check.endsWith(`:${scope}`) && f.details?.installed === true);
  const user = new Set(installedAt('user').map((f) => f.check.split(':')[1]!));
  const out: Finding[] = [];
  for (const agent of new Set(installedAt('project').map((f) => f.check.split(':')[1]!))) {
    if (!user.has(agent)) continue;
    const paths = [...new Set(hooks.filter((f) => f.check === `hooks:${agent}:user`).flatMap((f) => (f.details?.configs as string[] | undefined) ?? []))];
    const { message, fix } = bothScopesProblem(agent, 'user', paths, projectDir);
    out.push({ check: `hooks:${agent}:project`, status: 'problem', message, fix, details: { both_scopes: true } });
  }
  return out;
}

/**
 * `cordon doctor` as a library call: what a user needs when "cordon isn't seeing my agent".
 * Node and the SQLite driver, the telemetry store when it exists (read-only), the plugins (a damaged `<data>/package.json` among them), per agent and scope the hooks (installed, current,
 * startable, accepted by the agent), the last hook event from each agent, the log's newest error,
 * running samplers and what `control probe` says. Reads and asks only; writes nothing.
 */
export async function runDoctor(host: CordonHost, options: DoctorOptions): Promise<DoctorReport> {
  const env = options.env ?? process.env;
  const store = telemetryStoreFinding(host.paths.dataDir, env);
  const findings: Finding[] = [nodeFinding(), await sqliteFinding(), ...(store ? [store] : []), ...pluginFindings(host, options.packages, dataPackageProblem(host.paths.dataDir), listedPluginProblems(host.paths.dataDir))];
  // In the home directory a project's `.claude/settings.json` is the user's own file: one scope.
  const project = resolve(options.projectDir ?? process.cwd());
  const atHome = project === resolve(env.HOME || env.USERPROFILE || homedir());
  const scopes = options.scopes ?? (atHome ? ['user'] : ['user', 'project']);
  const hooks: Finding[] = [];
  for (const scope of scopes) hooks.push(...(await hookFindings(host, { scope, projectDir: options.projectDir, env: options.env })));
  hooks.push(...bothScopes(hooks, options.projectDir === undefined ? undefined : project));
  // Hooks in the project's config serve the agent as well as the user's would.
  const inProject = new Set(hooks.filter((f) => f.check.endsWith(':project')).map((f) => f.check.split(':')[1]));
  findings.push(...hooks.filter((f) => !(f.details?.missing === true && inProject.has(f.check.split(':')[1]))));
  // Agents whose config holds cordon's hooks (current or not): a hook event is expected from them.
  const installedAgents = [...new Set(hooks.filter((f) => f.details?.installed === true).map((f) => f.check.split(':')[1]!))];
  findings.push(...activityFindings(host.paths.dataDir, installedAgents, options.now));
  // Plugins installed or linked now: a logged failure of any other one was fixed by removing it.
  const plugins = new Set([...options.packages.map((p) => p.name), ...host.applied, ...host.failures.map((f) => f.plugin)]);
  findings.push(...logFindings(host.paths.dataDir, options.now, plugins));
  findings.push(...samplerFindings(host.paths.dataDir));
  findings.push(await controlFinding(host));
  return doctorReport(findings);
}
