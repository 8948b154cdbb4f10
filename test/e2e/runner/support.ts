import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORDON_BIN, linkPlugins, makeSandbox, runCordon, type RunResult, type Sandbox } from '../../support/cli.js';
import { claudeSession, codexSession, geminiSession, type AgentSession, type FakeModelServer } from '../../support/fake-models/index.js';
import { makeRepo } from '../../support/git.js';

/**
 * One `cordon run`/`resume` scene: an isolated sandbox with the three agent plugins linked, a
 * real git repository, and an agent session (home, config, env) pointed at a fake model server.
 * The fake's scripted paths are relative to the repository, which is the agent's working dir.
 */
export interface Scene {
  readonly sandbox: Sandbox;
  readonly repo: string;
  readonly session: AgentSession;
  /** Runs the built `cordon` in the repository with the session's environment (agent home, fake origin, agent on PATH). */
  cordon(args: readonly string[], extraEnv?: NodeJS.ProcessEnv): Promise<RunResult>;
  /** Starts `cordon` without waiting (to signal it mid-attempt). */
  spawnCordon(args: readonly string[]): ChildProcess;
  /** Points the session at another fake server (a new script for the next attempt). */
  useServer(server: FakeModelServer): void;
}

/** The reference's demo repository (the BEKO2210/SkillQuarry cordon): `src/app.py` and a README. */
export const DEMO_FILES = { 'src/app.py': 'print("hello")\n', 'README.md': '# demo\n' };

type SessionFactory = typeof claudeSession;
const SESSIONS: Record<'claude-code' | 'codex' | 'gemini', SessionFactory> = { 'claude-code': claudeSession, codex: codexSession, gemini: geminiSession };
const ORIGIN_VARS: Record<'claude-code' | 'codex' | 'gemini', string | undefined> = { 'claude-code': 'ANTHROPIC_BASE_URL', codex: undefined, gemini: 'GOOGLE_GEMINI_BASE_URL' };

const spawned = new Set<ChildProcess>();

/** Builds a {@link Scene} for `agent` against `server` (whose `workdir` must be `repoDir`). */
export function makeScene(agent: 'claude-code' | 'codex' | 'gemini', sandbox: Sandbox, repoDir: string, server: FakeModelServer): Scene {
  linkPlugins(sandbox.dataDir, ['claude-code', 'codex', 'gemini']);
  let session = SESSIONS[agent]({ origin: server.origin, home: sandbox.dir('agent-home'), workdir: repoDir, env: sandbox.env });
  let env: NodeJS.ProcessEnv = { ...session.env };
  return {
    sandbox,
    repo: repoDir,
    get session() {
      return session;
    },
    cordon: (args, extraEnv) => runCordon(args, { cwd: repoDir, env: { ...env, ...extraEnv }, timeoutMs: 90_000 }),
    spawnCordon(args) {
      const child = spawn(process.execPath, [CORDON_BIN, ...args], { cwd: repoDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      spawned.add(child);
      child.once('exit', () => spawned.delete(child));
      return child;
    },
    useServer(next) {
      const originVar = ORIGIN_VARS[agent];
      if (originVar) env = { ...env, [originVar]: next.origin };
      else {
        // Codex reads its provider URL from config.toml.
        const config = readFileSync(session.userConfig, 'utf8').replace(/base_url = ".*"/, `base_url = "${next.origin}/v1"`);
        writeFileSync(session.userConfig, config);
      }
      session = { ...session, env };
    },
  };
}

/** A sandbox and a committed demo repository inside it. */
export function makeRepoSandbox(prefix: string, files: Record<string, string> = DEMO_FILES): { sandbox: Sandbox; repo: string } {
  const sandbox = makeSandbox(prefix);
  const repo = makeRepo(join(sandbox.root, 'repo'), files, sandbox.env);
  return { sandbox, repo };
}

/** SIGKILLs every cordon this module spawned that is still running (afterEach). */
export function killSpawned(): void {
  for (const child of spawned) child.kill('SIGKILL');
  spawned.clear();
}

/** `.cordon/state.json`, parsed. */
export function readState(repo: string): Record<string, any> {
  return JSON.parse(readFileSync(join(repo, '.cordon/state.json'), 'utf8'));
}

/** `.cordon/attempt-<n>.json`: `{prompt, run}`. */
export function readAttempt(repo: string, n: number): { prompt: string; run: Record<string, any> } {
  return JSON.parse(readFileSync(join(repo, `.cordon/attempt-${n}.json`), 'utf8'));
}

/** Parses `--json` stdout. */
export function json(result: RunResult): any {
  try {
    return JSON.parse(result.stdout);
  } catch {
    throw new Error(`not JSON (exit ${result.exitCode}):\n${result.stdout}\n--- stderr ---\n${result.stderr}`);
  }
}

/**
 * The prompt text the model received: the string in any recorded request body that holds the
 * envelope's opening sentence (each agent wraps the user prompt differently).
 */
export function promptsSeen(server: FakeModelServer): string[] {
  const found = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.includes('cordon change envelope')) found.add(value);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  for (const request of server.requests) walk(request.body);
  return [...found];
}

/** Pids of live processes whose command line contains `marker` (read from /proc). */
export function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (cmdline.includes(marker) && !/\) Z /.test(stat)) out.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** True while `pid` runs (not a zombie). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

/** Polls `check` every 50 ms until it returns true or `ms` pass; returns the last answer. */
export async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** Waits for a spawned child to exit; resolves with its code, signal and output. */
export function exited(child: ChildProcess): Promise<RunResult> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (b: Buffer) => out.push(b));
  child.stderr?.on('data', (b: Buffer) => err.push(b));
  return new Promise((resolve) => {
    child.once('close', (exitCode, signal) => resolve({ exitCode, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** Lets the session's Claude Code run Bash without asking (its user settings), as a user would for a headless run. */
export function allowClaudeBash(session: AgentSession): void {
  writeFileSync(session.userConfig, JSON.stringify({ permissions: { allow: ['Bash'] } }, null, 2));
}

/** True when the repository lock file exists. */
export function lockHeld(repo: string): boolean {
  return existsSync(join(repo, '.git/cordon.lock'));
}
