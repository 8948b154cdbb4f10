import { readlinkSync } from 'node:fs';
import type { GuardChild, GuardRequest, GuardResult, GuardSpawnOptions, HookTable, Logger } from '@cordon/plugin-api';
import { spawnPassThrough, type PassThroughChild } from './launch.js';
import { shownEndedProcesses } from './ended.js';
import { endedText, noteText, normaliseCommand, shouldWarn, stallMs } from './note.js';
import { countWarning, recordRun, type RunRecord } from './store.js';
import { limitOf, mib, parseHint, stallPolicy, tierNamed, TIERS } from './tiers.js';
import { monotonicMs } from '../util/clock.js';
import { isTerminal, totalMemoryBytes } from '../util/legacy-binding.js';
import { mark } from '../util/timeline.js';
import { UNGUARDED_WARNING } from './unguarded.js';
import { guardRewriteCommand } from './guard-shape.js';
import { CANNOT_EXECUTE_STATUS, NOT_FOUND_STATUS } from '../process/start-failure.js';
import { startFailureReporter } from '../bus/load-services.js';
import { terminalText } from '../output/terminal.js';
import { redactArgv, redactText } from '../output/redact.js';
import { shownJson } from '../output/json-text.js';
import { recordedArgv, recordedCommand, type RecordedArgv } from '../output/recorded-command.js';
import { cutText } from '@cordon/plugin-api';

/** Exit status when the command cannot be found (`ENOENT`: the shells' and GNU `env`'s "command not found"). */
export const CANNOT_START = NOT_FOUND_STATUS;

/** Exit status when the command was found but cannot be run (`EACCES`, `ENOEXEC`, a directory …), as shells and GNU `env` and `timeout` give it. */
export const CANNOT_EXECUTE = CANNOT_EXECUTE_STATUS;

/**
 * Why the words after `--` cannot be run, as a usage error of `control run` (`CORDON_BAD_INPUT`,
 * exit 2, nothing started), or `undefined`: no command at all, or an empty program name
 * (`-- ''`), which no system call starts and a search of `PATH` would only misname. Both routes
 * ask it: the fast route leaves such a form to oclif, which refuses it with this text.
 */
export function commandUsageProblem(argv: readonly string[]): string | undefined {
  if (argv.length === 0) return 'give the command to run after --, e.g. `cordon control run -- npm test`';
  if (argv[0] === '') return "the program name after -- is empty (''): give the command to run, e.g. `cordon control run -- npm test`";
  return undefined;
}

/** Input of {@link controlRun}. */
export interface ControlRunOptions {
  /** The command and its arguments (what follows `--`). */
  readonly argv: readonly string[];
  /** `--hint`, if given (already validated by the command). */
  readonly hint?: string;
  /** `--session`: the agent session whose tool call this is, recorded so `cordon reduce` can join the run to the call. */
  readonly session?: string;
  /**
   * Working directory; `undefined` when this process's own has no name any more (deleted): the
   * command then starts in it all the same, and the record names it as the kernel does
   * (`/proc/self/cwd`, e.g. `/tmp/x (deleted)`).
   */
  readonly cwd: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  /** `--json`: the command's stdout is relayed so the record can start on a line of its own ({@link ControlRunOutcome.stdoutEndsLine}). */
  readonly json?: boolean;
  /** The host's hook table (`enforce` is fired on it). */
  readonly hooks: Pick<HookTable, 'enforce'>;
  readonly dataDir: string;
  readonly log: Logger;
  /**
   * One stderr line saying what was (or would have been) applied. Without it, that line is
   * written only for an unguarded run that a person typed: its stderr (the default one) is a
   * terminal, and it is no agent's tool call ({@link isAgentCall}), whose output, terminal or not
   * (Gemini CLI, Codex and Aider may run commands in a pseudo-terminal), stays exactly what the
   * command wrote.
   */
  readonly verbose?: boolean;
  /** Where the note and the verbose line go (default process.stderr). */
  readonly stderr?: { write(text: string): unknown };
}

/**
 * Whether a run is an agent's tool call rather than a command a person typed: it names the
 * agent's session (`--session`), or it runs `control guard`'s rewrite (guard-shape.ts).
 */
export function isAgentCall(options: Pick<ControlRunOptions, 'argv' | 'session'>): boolean {
  return options.session !== undefined || guardRewriteCommand(options.argv) !== undefined;
}

/** What {@link controlRun} did. */
export interface ControlRunOutcome {
  /** The command's status: its exit code, 128 + signal, 127 when it was not found, 126 when it was found but could not run. */
  readonly exitCode: number;
  readonly record: RunRecord;
  /** The note written to stderr, if any. */
  readonly note?: string;
  /** Whether the command's stdout ended with a newline (or was empty); false means write one before the `--json` record. */
  readonly stdoutEndsLine: boolean;
}

/**
 * `cordon control run` (uncoalesced/cordon): builds a typed {@link GuardRequest} from the
 * hint (`--hint`, else `AGENT_RESOURCE_HINT`, else `memory:medium`; a `--hint` is also put into
 * the command's environment unless the variable is set), fires `enforce`, and, when no backend
 * answers, runs the command unguarded with the same pass-through and logs what would have
 * applied. Afterwards it writes the note when the run warrants one (counting the warning per
 * normalised command in `control.sqlite3`), and records the run in `control/runs.jsonl`.
 *
 * Never throws for the command's failures; a backend that throws is logged and, if it had not
 * started the command yet, the command runs unguarded.
 */
export async function controlRun(options: ControlRunOptions): Promise<ControlRunOutcome> {
  const { argv, env, log } = options;
  // process.stderr only when something is written: creating the stream loads Node's stream
  // modules, time a quiet run does not pay (`npm run bench:control`).
  const stderr = options.stderr ?? { write: (text: string) => process.stderr.write(text) };
  const raw = options.hint ?? (env.AGENT_RESOURCE_HINT || undefined);
  const hint = parseHint(raw);
  // The hint is an agent's text like any other: redacted, and cut as a command is, where it is kept.
  const keptHint = raw === undefined ? null : recordedCommand(redactText(raw));
  if (hint.unknown.length) log.warn('control run: hint tokens not understood were skipped', { hint: keptHint, unknown: hint.unknown.slice(0, 20).map((token) => cutText(token, 100)), unknown_count: hint.unknown.length });
  // This process's own environment is inherited as it is, not copied (spawnDirect): about 0.3 ms
  // of every call for forty variables (`npm run bench:control`).
  const addHint = options.hint !== undefined && env.AGENT_RESOURCE_HINT === undefined;
  const childEnv: NodeJS.ProcessEnv | undefined = addHint ? { ...env, AGENT_RESOURCE_HINT: options.hint } : env === process.env ? undefined : env;
  const tier = tierNamed(hint.memory)!;
  const cpuWeight = tierNamed(hint.cpu)!.cpuWeight;
  const ramBytes = totalMemoryBytes();

  let child: PassThroughChild | undefined;
  let startError: Error | undefined;
  // The command as cordon writes it anywhere (log, record, warning count): its secrets as `***`
  // (output/redact.ts), then cut as markers cut theirs (output/recorded-command.ts); worked out
  // once the command has started.
  let shownArgv: string[] | undefined;
  let kept: RecordedArgv | undefined;
  const keptArgv = (): RecordedArgv => (kept ??= recordedArgv((shownArgv ??= redactArgv(argv))));
  const spawn = async (spawnOptions: GuardSpawnOptions = {}): Promise<GuardChild> => {
    if (child || startError) throw new Error('GuardRequest.spawn was called twice');
    try {
      child = await spawnPassThrough({ ...spawnOptions, argv, cwd: options.cwd, ...(childEnv ? { env: childEnv } : {}), relayStdout: options.json === true });
      mark('command started');
      // While the command runs (it has exec'd), not after it ends: the first redaction builds its expressions.
      keptArgv();
      return child;
    } catch (error) {
      startError = error as Error;
      throw error;
    }
  };
  const cwd = options.cwd ?? currentDirectoryName();
  const request: GuardRequest = { argv, cwd, ...(raw !== undefined ? { hint: raw } : {}), tier: tier.name, cpuWeight, tiers: TIERS, ramBytes, stall: stallPolicy(env), spawn };

  const started = monotonicMs();
  const startT = Date.now();
  let result: GuardResult | undefined;
  try {
    result = await options.hooks.enforce.promise(request);
  } catch (error) {
    log.error('control run: the enforce backend failed', { error: String(error) });
  }
  let exitCode: number;
  let signal: string | null = null;
  let failure: { readonly message: string; readonly status: number } | undefined;
  if (result) {
    exitCode = result.exitCode;
    signal = result.signal ?? null;
  } else {
    // No backend answered (or one failed): the command runs unguarded, unless it already ran.
    const limit = limitOf(tier, ramBytes);
    if (!child && !startError) await spawn().catch(() => undefined);
    // Logged while the command runs, on the other core: libuv returns from the spawn once the
    // command has exec'd, and this process would only wait for it (`npm run bench:control`).
    // Secrets as `***` (the log redacts its `argv` field itself; already done here, it has nothing left to find).
    const { argv: loggedArgv, omitted } = keptArgv();
    log.warn(UNGUARDED_WARNING, { argv: loggedArgv, ...(omitted ? { argv_omitted: omitted } : {}), tier: tier.name, memory_high: limit, cpu_weight: cpuWeight });
    const exit = child ? await child.exit : undefined;
    // Looked into only once the start failed, from the services' bundle: a command that starts
    // pays for none of it, not even the describer's share of this route's bundle.
    if (startError) failure = startFailureReporter()(argv[0]!, startError, { ...(options.cwd !== undefined ? { cwd: options.cwd } : {}), ...(childEnv ? { env: childEnv } : {}) });
    exitCode = exit?.exitCode ?? failure?.status ?? CANNOT_START;
    signal = exit?.signal ?? null;
    const would = `would apply memory.high=${limit === null ? 'max' : `${limit} (${mib(limit)} MiB, memory:${tier.name} of ${mib(ramBytes)} MiB)`} and cpu.weight=${cpuWeight}`;
    if (options.verbose || (options.stderr === undefined && !isAgentCall(options) && isTerminal(2))) stderr.write(`[cordon] unguarded: no enforcement backend can enforce here (cordon control probe says why); ${would}\n`);
  }
  const wallMs = Math.round(monotonicMs() - started);
  mark('command ended');
  if (failure) stderr.write(`cordon control run: ${terminalText(failure.message)}\n`);
  // A backend's notes may name command lines (the processes it ended).
  if (result && options.verbose) for (const line of result.notes) stderr.write(`[cordon] ${redactText(line)}\n`);

  const { argv: recorded, omitted } = keptArgv();
  // From every argument, not the kept ones: the same words up to the cut, whatever was left out.
  const command = recordedCommand(normaliseCommand(shownArgv!));
  let note: string | undefined;
  let warningNumber: number | null = null;
  const warned = result !== undefined && shouldWarn(result);
  if (result && warned) {
    try {
      warningNumber = await countWarning(options.dataDir, command);
    } catch (error) {
      log.error('control run: the warning count could not be stored', { error: String(error) });
    }
    note = noteText(result, warningNumber ?? 1);
  }
  // Processes the call left running were ended with it: the agent is told in the same line.
  const ended = shownEndedProcesses(result?.ended);
  if (ended.length) note = note ? `${note} ${endedText(ended)}` : `[cordon] ${endedText(ended)}`;
  if (note) stderr.write(`${note}\n`);
  const record: RunRecord = {
    t: Date.now(),
    start_t: startT,
    session_id: options.session ?? null,
    argv: recorded,
    ...(omitted ? { argv_omitted: omitted } : {}),
    command,
    cwd,
    hint: keptHint,
    backend: result?.backend ?? null,
    enforced: result?.enforced ?? false,
    domain: result?.domain ?? null,
    placement: result?.placement?.kind ?? null,
    tier: tier.name,
    final_tier: result?.finalTier ?? tier.name,
    limit_bytes: result ? result.limitBytes : limitOf(tier, ramBytes),
    ram_bytes: result?.ramBytes ?? ramBytes,
    cpu_weight: cpuWeight,
    peak_bytes: result?.peakBytes ?? null,
    peak_source: result?.peakSource ?? null,
    stall_full_ms: result?.memoryPressure ? result.memoryPressure.fullUs / 1000 : null,
    stall_source: result?.stallSource ?? null,
    throttled_ms: result?.throttledMs ?? null,
    stall_some_ms: result?.memoryPressure ? result.memoryPressure.someUs / 1000 : null,
    cpu_stall_some_ms: result?.cpuPressure ? result.cpuPressure.someUs / 1000 : null,
    events: result?.events ?? {},
    cpu_stat: result?.cpuStat ?? {},
    frozen_count: result?.frozenCount ?? 0,
    frozen_ms: result?.frozenMs ?? 0,
    escalations: result?.escalations ?? [],
    wall_ms: result?.wallMs ?? wallMs,
    exit_code: exitCode,
    signal,
    removed: result?.removed ?? null,
    ended,
    warned,
    warning_number: warningNumber,
  };
  try {
    recordRun(options.dataDir, record);
  } catch (error) {
    log.error('control run: the run could not be recorded', { error: String(error) });
  }
  mark('run recorded');
  const stdoutEndsLine = child ? await child.stdoutEndsLine : true;
  return { exitCode, record, stdoutEndsLine, ...(note ? { note } : {}) };
}

/**
 * Writes the run record of `--json` to stdout as one line of its own, after the command's output
 * (a newline first when that output did not end with one).
 */
export function printRecord(outcome: ControlRunOutcome): void {
  process.stdout.write(`${outcome.stdoutEndsLine ? '' : '\n'}${shownJson(outcome.record)}\n`);
}

/**
 * This process's working directory, for the process's own use: `process.cwd()`, or `undefined`
 * when the directory was deleted (Node throws `ENOENT` from uv_cwd; the process is still in it).
 */
export function workingDirectory(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

/** The kernel's name for a working directory that has none any more (`/tmp/x (deleted)`), for records. */
function currentDirectoryName(): string {
  try {
    return readlinkSync('/proc/self/cwd');
  } catch {
    return '(deleted working directory)';
  }
}
