import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { requireAgent, type AgentName } from '../agents.js';

/** How one agent run ended. */
export interface AgentRun {
  /** The agent's own exit code (`null` when killed by a signal). */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** True when the run hit `timeoutMs` and its process group was killed. */
  readonly timedOut: boolean;
  /** Wall time in ms. */
  readonly durationMs: number;
  /** PID of the process spawned (the agent's entry: the native binary for Claude, a Node launcher for Codex and Gemini). */
  readonly pid: number | undefined;
}

/** An isolated agent installation: a home directory, its config files and the environment to run it with. */
export interface AgentSession {
  readonly agent: AgentName;
  /** `HOME` of the agent (and of `cordon install-hooks --scope user`). */
  readonly home: string;
  /** Working directory the agent runs in (the scripted paths should live here). */
  readonly workdir: string;
  /** Environment for the agent and for cordon commands that must see the same home. */
  readonly env: NodeJS.ProcessEnv;
  /** The agent's user config file that `install-hooks --scope user` edits. */
  readonly userConfig: string;
  /** Runs the agent headless with `prompt`; never rejects on a non-zero exit. */
  run(prompt?: string, options?: { timeoutMs?: number; extraArgs?: readonly string[] }): Promise<AgentRun>;
}

/** Options for the `*Session` factories. */
export interface SessionOptions {
  /** Fake model server origin (`server.origin`). */
  readonly origin: string;
  /** The agent's HOME; created if missing. Use a fresh directory per test. */
  readonly home: string;
  /** Working directory of the run; created if missing. */
  readonly workdir: string;
  /** Base environment (e.g. a cordon sandbox env with `CORDON_DATA_DIR`); agent variables are stripped from it. */
  readonly env?: NodeJS.ProcessEnv;
}

const live = new Set<ChildProcess>();

/** Kills every agent process group still running (call in afterEach). */
export function killAgents(): void {
  for (const child of live) killGroup(child);
  live.clear();
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** `env` with `dir` first on PATH, so `cordon install-hooks --all` and the Codex trust check find the agent. */
function withBinOnPath(env: NodeJS.ProcessEnv, bin: string): NodeJS.ProcessEnv {
  return { ...env, PATH: [dirname(bin), env.PATH].filter(Boolean).join(delimiter) };
}

/**
 * A base environment without anything that would point an agent at a real service or a parent
 * agent session (variables of the coding client, API keys, agent homes), and with loopback
 * excluded from any proxy.
 */
export function cleanAgentEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (/^(CLAUDE|ANTHROPIC_|OPENAI_|CODEX_|GEMINI_|GOOGLE_|CURSOR_|HERMES_|AI_AGENT)/.test(key)) continue;
    env[key] = value;
  }
  env.NO_PROXY = env.no_proxy = '127.0.0.1,localhost';
  return env;
}

/** Spawns `argv` in its own process group, collects output, kills the group on timeout. */
function launch(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<AgentRun> {
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    live.add(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      live.delete(child);
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      live.delete(child);
      resolvePromise({ exitCode, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), timedOut, durationMs: Date.now() - started, pid: child.pid });
    });
  });
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n');
}

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * Claude Code (`claude -p`) against a {@link FakeAnthropic}: `ANTHROPIC_BASE_URL`, a dummy
 * `ANTHROPIC_API_KEY`, no non-essential traffic; Bash/Write/Read/Edit pre-approved with
 * `--allowedTools` (root cannot use `--dangerously-skip-permissions`). User config:
 * `<home>/.claude/settings.json` (written as `{}` so install-hooks has a file to merge into).
 */
export function claudeSession(options: SessionOptions): AgentSession {
  const { bin } = requireAgent('claude-code');
  mkdirSync(options.workdir, { recursive: true });
  const userConfig = join(options.home, '.claude', 'settings.json');
  writeJson(userConfig, {});
  const env: NodeJS.ProcessEnv = {
    ...withBinOnPath(cleanAgentEnv(options.env), bin),
    HOME: options.home,
    ANTHROPIC_BASE_URL: options.origin,
    ANTHROPIC_API_KEY: 'cordon-fake-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
  };
  return {
    agent: 'claude-code',
    home: options.home,
    workdir: options.workdir,
    env,
    userConfig,
    run: (prompt = 'Run the scripted steps.', run = {}) =>
      launch([bin, '-p', prompt, '--output-format', 'json', '--allowedTools', 'Bash Write Read Edit', ...(run.extraArgs ?? [])], options.workdir, env, run.timeoutMs ?? DEFAULT_TIMEOUT_MS),
  };
}

/**
 * Codex (`codex exec --json`) against a {@link FakeOpenAIResponses}: `CODEX_HOME=<home>/.codex`
 * with a `config.toml` naming a `fake` Responses provider at `<origin>/v1`, model `gpt-5.5` (a
 * slug Codex knows, so it offers `apply_patch`), approval `never`, full access, no retries.
 * Hooks run via `$SHELL -lc`, so `SHELL` is bash. User config: `<home>/.codex/config.toml`
 * (install-hooks adds trust entries there) beside `hooks.json`.
 */
export function codexSession(options: SessionOptions): AgentSession {
  const { bin } = requireAgent('codex');
  mkdirSync(options.workdir, { recursive: true });
  const codexHome = join(options.home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  const userConfig = join(codexHome, 'config.toml');
  writeFileSync(
    userConfig,
    [
      '# written by the cordon test harness',
      'model = "gpt-5.5"',
      'model_provider = "fake"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.fake]',
      'name = "cordon fake Responses server"',
      `base_url = "${options.origin}/v1"`,
      'wire_api = "responses"',
      'env_key = "CORDON_FAKE_OPENAI_KEY"',
      'stream_max_retries = 0',
      'request_max_retries = 0',
      '',
    ].join('\n'),
  );
  const env: NodeJS.ProcessEnv = { ...withBinOnPath(cleanAgentEnv(options.env), bin), HOME: options.home, CODEX_HOME: codexHome, CORDON_FAKE_OPENAI_KEY: 'cordon-fake-key', SHELL: '/bin/bash' };
  return {
    agent: 'codex',
    home: options.home,
    workdir: options.workdir,
    env,
    userConfig,
    run: (prompt = 'Run the scripted steps.', run = {}) =>
      launch([bin, 'exec', '-m', 'gpt-5.5', '--skip-git-repo-check', '--json', ...(run.extraArgs ?? []), prompt], options.workdir, env, run.timeoutMs ?? DEFAULT_TIMEOUT_MS),
  };
}

/**
 * Gemini CLI (`gemini -p`) against a {@link FakeGemini}: `GOOGLE_GEMINI_BASE_URL`, a dummy
 * `GEMINI_API_KEY` with auth type `gemini-api-key` (the URL alone selects `gateway`, which `-p`
 * rejects with exit 41), the workspace trusted (`GEMINI_CLI_TRUST_WORKSPACE`, else exit 55),
 * `--approval-mode yolo`, usage statistics off. User config: `<home>/.gemini/settings.json`.
 */
export function geminiSession(options: SessionOptions): AgentSession {
  const { bin } = requireAgent('gemini');
  mkdirSync(options.workdir, { recursive: true });
  const userConfig = join(options.home, '.gemini', 'settings.json');
  writeJson(userConfig, { security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } });
  const env: NodeJS.ProcessEnv = {
    ...withBinOnPath(cleanAgentEnv(options.env), bin),
    HOME: options.home,
    GOOGLE_GEMINI_BASE_URL: options.origin,
    GEMINI_API_KEY: 'cordon-fake-key',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
  };
  return {
    agent: 'gemini',
    home: options.home,
    workdir: options.workdir,
    env,
    userConfig,
    run: (prompt = 'Run the scripted steps.', run = {}) =>
      launch([bin, '-p', prompt, '--output-format', 'json', '--approval-mode', 'yolo', ...(run.extraArgs ?? [])], options.workdir, env, run.timeoutMs ?? DEFAULT_TIMEOUT_MS),
  };
}
