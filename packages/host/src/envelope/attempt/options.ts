import { isAbsolute, resolve } from 'node:path';
import type { AgentRunner, RunnerLimits } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { exactKeys, isPlainObject } from '../policy/policy.js';
import { pathCandidates } from '../../process/path-search.js';
import { commandProblem } from '../../process/start-failure.js';
import { numberValueProblem, type NumberRule } from '../../util/number-range.js';

/** Default wall-clock limit of one attempt, seconds (the BEKO2210/SkillQuarry cordon: 1,800). */
export const DEFAULT_TIMEOUT_SECONDS = 1800;
/** Default bytes of output per stream before the attempt is an engine error (the BEKO2210/SkillQuarry cordon: 4 MiB). */
export const DEFAULT_AGENT_OUTPUT_CAP = 4 * 1024 * 1024;

/**
 * Longest `--timeout`, seconds: a week, as for verifiers. Also below what a Node timer holds
 * (2^31 - 1 ms, about 24.8 days): a longer one would fire at once and end the attempt.
 */
export const MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;

/** What each numeric flag of `cordon run` accepts; a refusal echoes the value and says this range (util/number-range.ts). */
export const RUNNER_NUMBERS = Object.freeze({
  timeout: { integer: false, min: 0, aboveMin: true, max: MAX_TIMEOUT_SECONDS, unit: 'seconds' },
  'max-budget-usd': { integer: false, min: 0, aboveMin: true, unit: 'US dollars' },
  'max-turns': { integer: true, min: 1 },
  'agent-output-cap': { integer: true, min: 1, unit: 'bytes' },
} satisfies Record<string, NumberRule>);

/**
 * The runner settings of an agent envelope, stored once at arm in `.cordon/config.json` as
 * `runner` (snake_case like the rest of the file) and used by `run` and every `resume`.
 */
export interface RunnerSettings {
  /** The executable: a name looked up on PATH, or a path. */
  readonly binary: string;
  /** Wall-clock limit per attempt, seconds (finite, > 0). */
  readonly timeout_seconds: number;
  /** Bytes each output stream may carry (positive integer). */
  readonly output_cap: number;
  readonly max_turns: number | null;
  readonly max_budget_usd: number | null;
  readonly model: string | null;
  readonly effort: string | null;
}

/** The settings as the user gave them (`cordon run` flags); absent means default. */
export interface RunnerInput {
  readonly binary?: string;
  readonly timeoutSeconds?: number;
  readonly outputCap?: number;
  readonly maxTurns?: number;
  readonly maxBudgetUsd?: number;
  readonly model?: string;
  readonly effort?: string;
}

/**
 * Validates `input` against what `runner` supports and fills the defaults (the BEKO2210/SkillQuarry cordon:
 * timeout and budget finite and positive, defect C8; numbers in {@link RUNNER_NUMBERS}' ranges;
 * effort from the agent's own list). A flag the agent cannot honour is refused rather than
 * silently dropped. Throws `CORDON_BAD_INPUT` (exit 2) naming the flag, echoing a refused number
 * and its range (`--timeout: expected a number of seconds greater than 0 and at most 604800 but
 * received: 0`).
 */
export function resolveRunnerSettings(runner: AgentRunner, input: RunnerInput): RunnerSettings {
  const { supports, title } = runner;
  if (input.binary !== undefined && (input.binary.trim() === '' || input.binary.includes('\0'))) throw bad('--agent-bin must be a non-empty path or command name');
  const numberProblem = (flag: keyof typeof RUNNER_NUMBERS, value: unknown) => {
    const problem = numberValueProblem(value, RUNNER_NUMBERS[flag]);
    if (problem) throw bad(`--${flag}: ${problem}`);
  };
  const timeout = input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  numberProblem('timeout', timeout);
  const cap = input.outputCap ?? DEFAULT_AGENT_OUTPUT_CAP;
  numberProblem('agent-output-cap', cap);
  if (input.maxTurns !== undefined) {
    if (!supports.maxTurns) throw bad(`--max-turns: ${title} has no turn limit; bound the attempt with --timeout`);
    numberProblem('max-turns', input.maxTurns);
  }
  if (input.maxBudgetUsd !== undefined) {
    if (!supports.maxBudgetUsd) throw bad(`--max-budget-usd: ${title} has no spend limit`);
    numberProblem('max-budget-usd', input.maxBudgetUsd);
  }
  if (input.model !== undefined) {
    if (!supports.model) throw bad(`--model: ${title} takes no model name`);
    if (input.model.trim() === '' || input.model.includes('\0')) throw bad('--model must not be empty');
  }
  if (input.effort !== undefined) {
    if (supports.effort.length === 0) throw bad(`--effort: ${title} has no effort levels`);
    if (!supports.effort.includes(input.effort)) throw bad(`--effort must be one of ${supports.effort.join(', ')} for ${title} (got ${JSON.stringify(input.effort)})`);
  }
  return {
    binary: input.binary ?? runner.binary,
    timeout_seconds: timeout,
    output_cap: cap,
    max_turns: input.maxTurns ?? (supports.maxTurns ? supports.maxTurns.default : null),
    max_budget_usd: input.maxBudgetUsd ?? null,
    model: input.model ?? null,
    effort: input.effort ?? null,
  };
}

/** The first problem of a stored `config.runner`, or undefined (checked on every `resume`). */
export function runnerSettingsProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'config runner is missing (this envelope was not armed by `cordon run`)';
  const keys = exactKeys(value, ['binary', 'effort', 'max_budget_usd', 'max_turns', 'model', 'output_cap', 'timeout_seconds']);
  if (keys) return `config runner ${keys}`;
  const v = value as Partial<Record<keyof RunnerSettings, unknown>>;
  if (typeof v.binary !== 'string' || v.binary === '') return 'config runner binary is invalid';
  if (typeof v.timeout_seconds !== 'number' || !Number.isFinite(v.timeout_seconds) || v.timeout_seconds <= 0) return 'config runner timeout_seconds is invalid';
  if (typeof v.output_cap !== 'number' || !Number.isSafeInteger(v.output_cap) || v.output_cap < 1) return 'config runner output_cap is invalid';
  if (v.max_turns !== null && (typeof v.max_turns !== 'number' || !Number.isSafeInteger(v.max_turns) || v.max_turns < 1)) return 'config runner max_turns is invalid';
  if (v.max_budget_usd !== null && (typeof v.max_budget_usd !== 'number' || !Number.isFinite(v.max_budget_usd) || v.max_budget_usd <= 0)) return 'config runner max_budget_usd is invalid';
  if (v.model !== null && (typeof v.model !== 'string' || v.model === '')) return 'config runner model is invalid';
  if (v.effort !== null && (typeof v.effort !== 'string' || v.effort === '')) return 'config runner effort is invalid';
  return undefined;
}

/** The limits a runner's {@link AgentRunner.launch} receives. */
export function runnerLimits(settings: RunnerSettings): RunnerLimits {
  return { maxTurns: settings.max_turns, maxBudgetUsd: settings.max_budget_usd, model: settings.model, effort: settings.effort };
}

function bad(message: string): CordonError {
  return new CordonError(ERROR_CODES.BAD_INPUT, message);
}

/**
 * Finds the agent's executable before anything is armed or counted: a
 * `binary` holding a `/` is a path (relative to `cwd`, where the agent starts), anything else is
 * looked up in `PATH` of `env` as `execvp` would. Returns the file found. Throws
 * `CORDON_PROCESS_ERROR` (exit 2) naming the binary and why it cannot start, in the words of a
 * failed start (`/x/claude: is a directory`, `"claude": not found on PATH`; process/start-failure.ts),
 * and how to install the agent (`runner.install`) or point `--agent-bin` at it.
 */
export function findAgentBinary(runner: Pick<AgentRunner, 'title' | 'install'>, binary: string, cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  if (binary.includes('/')) {
    const path = isAbsolute(binary) ? binary : resolve(cwd, binary);
    const problem = commandProblem(path);
    if (problem === undefined) return path;
    throw missingAgent(runner, binary, `${path}: ${problem.why}`);
  }
  for (const candidate of pathCandidates(binary, env.PATH, { cwd })) {
    const path = resolve(cwd, candidate);
    if (commandProblem(path) === undefined) return path;
  }
  // Why, in the words a failed start would get: a directory or a file without execute permission on PATH is said as such.
  const why = commandProblem(binary, { cwd, env })?.why ?? 'not found on PATH';
  throw missingAgent(runner, binary, `${JSON.stringify(binary)}: ${why}`);
}

function missingAgent(runner: Pick<AgentRunner, 'title' | 'install'>, binary: string, where: string): CordonError {
  const how = runner.install ? `install it (${runner.install}) or pass --agent-bin PATH` : 'install it or pass --agent-bin PATH';
  return new CordonError(ERROR_CODES.PROCESS_ERROR, `cannot start ${runner.title}: ${where}; ${how}. Nothing was armed and no attempt was used`, { details: { binary } });
}
