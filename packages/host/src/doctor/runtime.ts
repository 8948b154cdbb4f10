import { existsSync } from 'node:fs';
import type { CordonHost } from '../bus/host.js';
import { runProbes } from '../control/probe.js';
import type { Finding } from './report.js';
import { sqliteDriverProblem } from '../util/sqlite-driver.js';
import { checkoutPluginDir, pluginInstallCommand } from '../plugins/install-hint.js';
import type { DataPackageProblem } from '../plugins/data-package.js';
import type { ListedPluginProblem } from '../plugins/listed-plugins.js';
import { join } from 'node:path';
import { TELEMETRY_MIGRATIONS } from '../telemetry/reduce/db/migrations.js';
import { TELEMETRY_DB_FILE } from '../telemetry/reduce/db/names.js';
import { QUICK_CHECK_MAX_BYTES, sqliteFileProblem } from '../telemetry/reduce/db/sqlite-file.js';
import { isPostgresUrl, resolveDbTarget } from '../telemetry/reduce/db/target.js';

/** Node majors the suites run under (docs/testing.md); 20 is past its end of life (2026-04-30). */
export const TESTED_NODE_MAJORS: readonly number[] = [20, 22, 24];

/** The Node version and whether cordon is tested on it. */
export function nodeFinding(version = process.version): Finding {
  const major = Number(/^v(\d+)/.exec(version)?.[1]);
  if (major === 20) return { check: 'node', status: 'info', message: `Node ${version}: tested, but Node 20 reached its end of life on 2026-04-30; Node 22 or 24 is recommended`, details: { version } };
  if (TESTED_NODE_MAJORS.includes(major)) return { check: 'node', status: 'ok', message: `Node ${version} (tested)`, details: { version } };
  return { check: 'node', status: 'info', message: `Node ${version} is not one cordon is tested on (${TESTED_NODE_MAJORS.join(', ')})`, details: { version } };
}

/** Whether better-sqlite3's native addon loads (reduce, analyze and pcodx need it). */
export async function sqliteFinding(): Promise<Finding> {
  try {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(':memory:');
    const version = db.prepare('select sqlite_version() as v').get() as { v: string };
    db.close();
    return { check: 'sqlite', status: 'ok', message: `better-sqlite3 loads (SQLite ${version.v})` };
  } catch (error) {
    const problem = sqliteDriverProblem(error) ?? `better-sqlite3 cannot load: ${String((error as Error).message).split('\n')[0]}`;
    const [message, fix] = problem.split('; run ');
    return { check: 'sqlite', status: 'problem', message: `${message} (reduce, analyze and pcodx need it)`, fix: fix ? `run ${fix}` : 'reinstall cordon: `npm install -g @cordon/host --allow-scripts=better-sqlite3`' };
  }
}

/**
 * The telemetry store `reduce` and `analyze` use (`CORDON_DB`, else `<data>/telemetry.sqlite3`),
 * when it is an SQLite file that exists: opened read-only (never created or migrated) and
 * checked as `reduce` would (the SQLite header, cordon's migration record, no migration from a
 * newer cordon) plus SQLite's `quick_check` for files up to {@link QUICK_CHECK_MAX_BYTES}. A
 * problem carries reduce's own `CORDON_DB_ERROR` words. `undefined` (no row) when there is no
 * such file yet or the store is PostgreSQL (doctor does not connect to a server).
 */
export function telemetryStoreFinding(dataDir: string, env: NodeJS.ProcessEnv = process.env): Finding | undefined {
  const path = resolveDbTarget(undefined, join(dataDir, TELEMETRY_DB_FILE), env);
  if (isPostgresUrl(path) || !existsSync(path)) return undefined;
  const { problem, checked } = sqliteFileProblem(path, Object.keys(TELEMETRY_MIGRATIONS), 'telemetry');
  if (problem) {
    return { check: 'telemetry-db', status: 'problem', message: `${problem} (reduce and analyze refuse it)`, fix: `move ${path} away; \`cordon reduce --all\` makes a new one from the sessions still under ${join(dataDir, 'runs')}`, details: { path } };
  }
  return { check: 'telemetry-db', status: 'ok', message: `${path}: cordon's telemetry database${checked ? ', integrity quick check ok' : ` (larger than ${QUICK_CHECK_MAX_BYTES / 2 ** 20} MiB: integrity not checked)`}`, details: { path } };
}

/**
 * Installed plugin packages with their versions (oclif's list: `packages`), sorted by name, and
 * each plugin that failed to load or apply, by plugin name. `damaged`, a damaged
 * `<data>/package.json` (the list of linked and installed plugins, plugins/data-package.ts: doctor
 * runs without it, where other commands refuse), is the row's problem, with its fix: re-linking
 * cannot repair it. `unloadable` are the plugins that list names whose own package.json oclif
 * could not read (plugins/listed-plugins.ts): a problem row each.
 */
export function pluginFindings(host: CordonHost, packages: ReadonlyArray<{ readonly name: string; readonly version: string }>, damaged?: DataPackageProblem, unloadable: readonly ListedPluginProblem[] = []): Finding[] {
  const findings: Finding[] = [];
  // oclif fills its plugin map as each plugin finishes loading, in no fixed order: runs must compare.
  const sorted = [...packages].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const listed = sorted.filter((p) => !p.name.startsWith('@oclif/')).map((p) => `${p.name}@${p.version}`);
  const none = host.applied.length === 0;
  if (damaged) findings.push({ check: 'plugins', status: 'problem', message: damaged.message, fix: damaged.fix, details: { file: damaged.file, problem: damaged.problem, applied: host.applied, packages: sorted } });
  else {
    findings.push({
      check: 'plugins',
      status: none ? 'problem' : 'ok',
      message: none ? 'no plugin applied: cordon knows no agent' : listed.join(', '),
      ...(none ? { fix: pluginFix() } : {}),
      details: { applied: host.applied, packages: sorted },
    });
  }
  // Listed, yet oclif could not read its manifest (a linked checkout deleted, a broken package.json).
  for (const p of unloadable) findings.push({ check: 'plugins', status: 'problem', message: p.message, fix: p.fix, details: { plugin: p.name, type: p.type, root: p.root } });
  const failures = [...host.failures].sort((a, b) => (a.plugin < b.plugin ? -1 : a.plugin > b.plugin ? 1 : 0));
  for (const failure of failures) {
    // A linked checkout never built carries its own fix (plugins/unbuilt.ts): build it or unlink it.
    const cause = failure.cause as { details?: { linked?: unknown; fix?: unknown } } | undefined;
    const fix = cause?.details?.linked === true && typeof cause.details.fix === 'string' ? cause.details.fix : 'update or reinstall the plugin it names (`cordon plugins install <name>`), or remove it (`cordon plugins uninstall <name>`)';
    findings.push({ check: 'plugins', status: 'problem', message: failure.message, fix });
  }
  return findings;
}

/** `control probe` in one line: whether guarded commands are enforced here, and if not, why. */
export async function controlFinding(host: CordonHost): Promise<Finding> {
  const report = await runProbes(host.probes.list());
  return report.available
    ? { check: 'control', status: 'ok', message: `enforcement available (${report.backend}): \`cordon control run\` runs each command in its own cgroup` }
    : { check: 'control', status: 'info', message: `enforcement unavailable: ${report.reason}; \`cordon control run\` runs commands unguarded${report.fix ? ` (to enable: ${report.fix})` : ''}` };
}

/** What to run when no plugin is applied: the checkout links them all; an install names the agents. */
function pluginFix(): string {
  const agents = ['claude-code', 'codex'];
  const command = pluginInstallCommand(agents);
  return agents.every((name) => checkoutPluginDir(name) !== undefined) ? command : `${command} (name the agents you use)`;
}
