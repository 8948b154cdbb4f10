import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { cutText, cutTextEnd } from '@cordon/plugin-api';
import type { AgentReport, AgentRunner, RecoveryContext } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { auditEnvelope, type EnvelopeAuditInput } from '../audit/run-audit.js';
import type { AuditRecord } from '../audit/record.js';
import type { RepoLocation } from '../git/repo.js';
import { processStart } from '../lock.js';
import { attemptRefusal, beginAttempt, finishAttempt } from '../phases.js';
import { writeFileAtomic } from '../../io/atomic-write.js';
import { canonicalJson } from '../state/canonical-json.js';
import { nowIso, type EnvelopeState } from '../state/schema.js';
import { envelopePaths, loadEnvelope, saveAuditAndState, saveState, type Envelope } from '../state/store.js';
import { classifyAttempt } from './classify.js';
import { runnerLimits, type RunnerSettings } from './options.js';
import { briefFor, renderBrief } from './prompt.js';
import { EXCERPT_CHARS, reportFields, startedRun, type AttemptRun } from './record.js';
import { signalExitCode, type InterruptTrap } from './signals.js';
import { endTree, superviseAgent, type AgentExit } from './supervise.js';
import { ProcessTree } from './tree.js';
import { clearStatus, setStatus } from '../../output/status.js';
import { resolvePaths } from '../../util/paths.js';
import { AttemptProgress } from './progress.js';
import { AgentStderrFollower } from './agent-stderr.js';
import { redactText } from '../../output/redact.js';

/** Exit codes of `run`/`resume` (the BEKO2210/SkillQuarry cordon; docs/reference.md "Exit codes"): 4 wins over 3 wins over 0. */
export const EXIT = Object.freeze({ ACCEPTED: 0, REFUSED: 2, REJECTED: 3, ENGINE_ERROR: 4 });

/**
 * How often `run` and `resume` print a plain status line while the agent runs when stderr is
 * not a terminal (on a terminal the status line is redrawn every second), ms.
 */
export const PLAIN_STATUS_EVERY_MS = 60_000;

/** What one attempt needs; the caller holds the lock for its whole duration. */
export interface AttemptInput {
  readonly loc: RepoLocation;
  readonly envelope: Envelope;
  /** Runner name (the envelope's mode). */
  readonly agent: string;
  readonly runner: AgentRunner;
  readonly settings: RunnerSettings;
  /** Present on `resume`. */
  readonly recovery?: RecoveryContext;
  readonly hooks?: EnvelopeAuditInput['hooks'];
  /** Environment of the agent and the verifiers (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** The caller's signal trap, installed when it took the lock. */
  readonly trap: InterruptTrap;
}

/** What `run`/`resume` report. */
export interface AttemptResult {
  /** 0 accepted, 3 rejected, 4 engine error, 128 + signal number when interrupted. */
  readonly exitCode: number;
  /** The state as persisted at the end. */
  readonly state: EnvelopeState;
  /** The audit after the attempt; null when it was interrupted. */
  readonly audit: AuditRecord | null;
  readonly run: AttemptRun;
}

/**
 * One agent attempt inside an armed envelope (the BEKO2210/SkillQuarry cordon, with the faults envelopes.md lists fixed):
 *
 * 1. refuse an accepted envelope or a reached ceiling (`CORDON_BAD_STATE`, exit 2);
 * 2. attempt + 1, phase `running` and a `last_run` naming this process, persisted before the
 *    agent starts; the prompt is kept in `.cordon/attempt-<n>.json`;
 * 3. run the agent (supervise.ts): own process group, timeout, output cap, its tree ended on
 *    SIGINT/SIGTERM/SIGHUP; a binary that cannot start is an engine error, not a crash;
 * 4. read the agent's own report (`runner.parse`) and classify (classify.ts);
 * 5. interrupted: persist `interrupted` and stop (no audit);
 * 6. otherwise re-validate the envelope, run the full audit with verifiers — after an engine
 *    error too — and persist the phase (`engine_error` stays even when the audit passed),
 *    `last_audit`, `last_run` and `audit.json`.
 *
 * Any error after step 2 first ends every process of the attempt, then persists `interrupted`
 * with the error, then rethrows, so phase `running` is never left behind by a live cordon.
 */
export async function runAttempt(input: AttemptInput): Promise<AttemptResult> {
  const { loc, envelope, runner, settings, trap } = input;
  const refusal = attemptRefusal(envelope.state);
  if (refusal) throw new CordonError(ERROR_CODES.BAD_STATE, refusal);
  const env = input.env ?? process.env;
  const began = beginAttempt(envelope.state);
  const n = began.attempt;
  const brief = briefFor(envelope.config, n, began.max_attempts, input.recovery);
  const prompt = runner.prompt(brief, renderBrief(brief));
  const plan = runner.launch({ prompt, limits: runnerLimits(settings), cwd: loc.root });
  let run: AttemptRun = startedRun({
    attempt: n,
    agent: input.agent,
    binary: settings.binary,
    args: [...plan.args],
    prompt_delivery: plan.stdin === undefined ? 'argv' : 'stdin',
    prompt_sha256: createHash('sha256').update(prompt).digest('hex'),
    owner_pid: process.pid,
    owner_start: processStart(process.pid),
    started_at: nowIso(),
  });
  const attemptFile = join(envelopePaths(loc.root).dir, `attempt-${n}.json`);
  const keep = (record: AttemptRun) => writeFileAtomic(attemptFile, canonicalJson({ prompt, run: record }));
  let state = saveState(loc.root, { ...began, last_run: run });
  keep(run);

  const tree = new ProcessTree(process.pid);
  // While the agent runs, superviseAgent answers an interrupt. During the audit this does: the
  // running verifier or git process gets TERM, then KILL after the grace; whatever the audit still
  // starts after the interrupt is killed at once, so the audit ends quickly.
  let auditing = false;
  let settled = false;
  let sweeper: NodeJS.Timeout | undefined;
  let ended: Promise<number> | undefined;
  trap.onInterrupt(() => {
    if (settled || !auditing) return;
    tree.scan();
    const before = new Set(tree.alive().map((m) => `${m.pid}:${m.start}`));
    ended = endTree(tree);
    sweeper = setInterval(() => {
      tree.scan();
      tree.signalAll('SIGKILL', (m) => !before.has(`${m.pid}:${m.start}`));
    }, 50).unref();
  });
  // What the agent does now, from the markers its hooks write, else the last line it wrote to stderr.
  const progress = new AttemptProgress(resolvePaths(env).dataDir, loc.root, Date.now());
  const stderr = new AgentStderrFollower();
  setStatus(`cordon ${n > 1 ? 'resume' : 'run'}: ${runner.title} attempt ${n}/${began.max_attempts} running in ${loc.root}`, () => {
    const call = progress.text();
    if (call) return call;
    const line = stderr.lastLine();
    return line === undefined ? undefined : `stderr: ${line}`;
  });
  try {
    const exit = await superviseAgent({
      argv: [settings.binary, ...plan.args],
      cwd: loc.root,
      env: { ...env, ...plan.env },
      stdin: plan.stdin,
      timeoutMs: settings.timeout_seconds * 1000,
      outputCap: settings.output_cap,
      tree,
      trap,
      onStderr: (chunk) => stderr.add(chunk),
      onSpawn: (pid) => {
        run = { ...run, agent_pid: pid, agent_start: processStart(pid) };
        state = saveState(loc.root, { ...state, last_run: run });
      },
    });
    const report = exit.started ? readReport(runner, exit) : undefined;
    clearStatus();
    const verdict = classifyAttempt(runner.title, exit, report, trap.signal, settings.timeout_seconds, settings.output_cap);
    run = {
      ...run,
      ...reportFields(report),
      status: verdict.kind,
      finished_at: nowIso(),
      wall_ms: exit.wallMs,
      exit_code: exit.exitCode,
      signal: exit.signal,
      timed_out: exit.timedOut,
      output_limited: exit.outputLimited,
      interrupted_by: trap.signal ?? null,
      leftover_processes: exit.leftovers,
      error: verdict.kind === 'finished' ? null : verdict.reason,
      // Redacted as every record of what an agent or a user typed is (output/redact.ts).
      stderr_tail: verdict.kind === 'engine_error' && exit.stderr ? cutTextEnd(redactText(cutTextEnd(exit.stderr, 2 * EXCERPT_CHARS)), EXCERPT_CHARS) : null,
    };
    if (verdict.kind === 'interrupted') return await interrupted(input, state, run, keep, ended);

    // The agent could have tampered with cordon's own state or the exclude file (the BEKO2210/SkillQuarry cordon step 4).
    auditing = true;
    const current = loadEnvelope(loc);
    const { config, snapshot } = current;
    let audit: AuditRecord;
    try {
      audit = await auditEnvelope({ loc, baseline: config.baseline, policy: config.policy, verify: config.verify, snapshot, hooks: input.hooks, env, previous: current.state.last_audit });
    } catch (error) {
      if (trap.signal) return await interrupted(input, state, duringAudit(run, trap.signal), keep, ended);
      throw error;
    }
    if (trap.signal) return await interrupted(input, state, duringAudit(run, trap.signal), keep, ended);
    const outcome = verdict.kind === 'engine_error' ? ({ kind: 'engine_error', reason: verdict.reason } as const) : ({ kind: 'finished' } as const);
    state = saveAuditAndState(loc.root, audit, { ...finishAttempt(state, outcome, audit), last_audit: audit, last_run: run });
    keep(run);
    const exitCode = verdict.kind === 'engine_error' ? EXIT.ENGINE_ERROR : audit.passed ? EXIT.ACCEPTED : EXIT.REJECTED;
    return { exitCode, state, audit, run };
  } catch (error) {
    await endTree(tree);
    const reason = cutText(`cordon stopped attempt ${n}: ${(error as Error).message}`, EXCERPT_CHARS);
    run = { ...run, status: 'interrupted', finished_at: run.finished_at ?? nowIso(), error: reason };
    try {
      saveState(loc.root, { ...state, phase: 'interrupted', last_error: reason, last_run: run });
      keep(run);
    } catch {
      // The original error matters more; status shows the run as stale if this write failed.
    }
    throw error;
  } finally {
    settled = true;
    if (sweeper) clearInterval(sweeper);
  }
}

/** Waits for the attempt's processes to be gone, persists phase `interrupted` with the run, and returns the signal's exit code (128 + n). */
async function interrupted(input: AttemptInput, state: EnvelopeState, run: AttemptRun, keep: (run: AttemptRun) => void, ending: Promise<number> | undefined): Promise<AttemptResult> {
  await ending;
  const signal = input.trap.signal ?? 'SIGINT';
  const next = saveState(input.loc.root, { ...finishAttempt(state, { kind: 'interrupted', reason: run.error ?? `interrupted by ${signal}` }), last_run: run });
  keep(run);
  return { exitCode: signalExitCode(signal), state: next, audit: null, run };
}

function duringAudit(run: AttemptRun, signal: NodeJS.Signals): AttemptRun {
  return { ...run, status: 'interrupted', interrupted_by: signal, error: `interrupted by ${signal} during the audit` };
}

/** `runner.parse`, with a throwing runner turned into an unreadable report (an engine error). */
function readReport(runner: AgentRunner, exit: AgentExit): AgentReport {
  try {
    return runner.parse({ exitCode: exit.exitCode, signal: exit.signal, stdout: exit.stdout, stderr: exit.stderr });
  } catch (error) {
    return { ok: false, unreported: true, error: `left a result cordon cannot read: ${(error as Error).message}` };
  }
}
