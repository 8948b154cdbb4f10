import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { runManaged, succeeded } from '../process.js';
import { splitCommand, type VerifySpec } from './spec.js';
import { EVIDENCE_BYTES, EVIDENCE_HALF, keptStream, type StreamCut } from './evidence.js';
import { clearStatus, setStatus } from '../../output/status.js';

export { EVIDENCE_BYTES, EVIDENCE_HALF, TRUNCATION_MARKER, type StreamCut } from './evidence.js';

/** Evidence of one verifier run (a field of the audit object, snake_case like the rest). */
export interface VerifierResult {
  readonly command: string;
  readonly argv: readonly string[];
  readonly passed: boolean;
  /** Exit code, or null when a signal ended it or it never started. */
  readonly returncode: number | null;
  readonly signal: string | null;
  readonly timed_out: boolean;
  readonly output_limited: boolean;
  /** A grandchild kept the output pipes open after the verifier exited. */
  readonly output_not_closed: boolean;
  /** Why it could not start (`cannot start 'x': ENOENT …`), else null. */
  readonly start_error: string | null;
  /**
   * Each stream as UTF-8 (invalid bytes replaced), only what the verifier wrote: whole up to
   * 16 KiB, else its first and last 8 KiB, where `stdout_cut`/`stderr_cut` say the middle was
   * left out (verify/evidence.ts: a marker in the text is the verifier's own; records of older
   * versions, without those keys, hold cordon's marker in the text).
   */
  readonly stdout: string;
  readonly stderr: string;
  /** Where and how much of `stdout` cordon left out; null when it is whole; absent in records of older versions. */
  readonly stdout_cut?: StreamCut | null;
  /** As {@link stdout_cut}, for `stderr`. */
  readonly stderr_cut?: StreamCut | null;
  readonly duration_ms: number;
}

/** Where verifiers run. */
export interface VerifierContext {
  /** Repository root: every verifier's cwd (the BEKO2210/SkillQuarry cordon). */
  readonly cwd: string;
  /** The caller's environment, passed unchanged (the BEKO2210/SkillQuarry cordon). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Runs every verifier of `spec` in order, all of them even after a failure (the BEKO2210/SkillQuarry cordon), each
 * split with {@link splitCommand}, without a shell, stdin /dev/null, in its own process group
 * under `timeout_seconds` and `output_cap` (the whole group is killed on either). A verifier
 * that cannot start is a failed result, not an error. Throws only on an invalid spec.
 */
export async function runVerifiers(spec: VerifySpec, context: VerifierContext): Promise<VerifierResult[]> {
  const results: VerifierResult[] = [];
  try {
    for (const [i, command] of spec.commands.entries()) {
      setStatus(`cordon check: verifier ${i + 1}/${spec.commands.length} running: ${command}`);
      results.push(await runVerifier(command, spec, context));
    }
  } finally {
    clearStatus();
  }
  return results;
}

/** Runs one verifier command (see {@link runVerifiers}). */
export async function runVerifier(command: string, spec: Pick<VerifySpec, 'timeout_seconds' | 'output_cap'>, context: VerifierContext): Promise<VerifierResult> {
  let argv: string[];
  try {
    argv = splitCommand(command);
  } catch (error) {
    throw new CordonError(ERROR_CODES.BAD_INPUT, (error as Error).message);
  }
  const base = { command, argv, timed_out: false, output_limited: false, output_not_closed: false };
  try {
    const r = await runManaged(argv, {
      cwd: context.cwd,
      env: context.env ?? process.env,
      timeoutMs: spec.timeout_seconds * 1000,
      outputCap: spec.output_cap,
      keepBytes: EVIDENCE_HALF,
      keepTailBytes: EVIDENCE_BYTES,
    });
    return {
      ...base,
      passed: succeeded(r),
      returncode: r.exitCode,
      signal: r.signal,
      timed_out: r.timedOut,
      output_limited: r.outputLimited,
      output_not_closed: r.outputNotClosed,
      start_error: null,
      ...streams(keptStream(r.stdout, r.stdoutTail, r.stdoutBytes), keptStream(r.stderr, r.stderrTail, r.stderrBytes)),
      duration_ms: Math.round(r.durationMs),
    };
  } catch (error) {
    if (error instanceof CordonError && error.code === ERROR_CODES.PROCESS_ERROR) {
      return { ...base, passed: false, returncode: null, signal: null, start_error: error.message, stdout: '', stderr: '', stdout_cut: null, stderr_cut: null, duration_ms: 0 };
    }
    throw error;
  }
}

/**
 * Short reason a verifier failed, for the violation line: `timeout`, `output limit`, `exit N`, …;
 * given the `limits` it ran under, a timeout and an output limit name theirs (`timeout after 600
 * s`, `output limit of 1048576 bytes`).
 */
export function failureReason(result: VerifierResult, limits?: Pick<VerifySpec, 'timeout_seconds' | 'output_cap'>): string {
  if (result.start_error) return 'cannot start';
  if (result.timed_out) return limits ? `timeout after ${limits.timeout_seconds} s` : 'timeout';
  if (result.output_limited) return limits ? `output limit of ${limits.output_cap} bytes` : 'output limit';
  if (result.output_not_closed) return 'output left open';
  if (result.signal) return `signal ${result.signal}`;
  return `exit ${result.returncode}`;
}

/** The four stream fields of a result from the two streams' evidence. */
function streams(out: ReturnType<typeof keptStream>, err: ReturnType<typeof keptStream>): Pick<VerifierResult, 'stdout' | 'stderr' | 'stdout_cut' | 'stderr_cut'> {
  return { stdout: out.text, stderr: err.text, stdout_cut: out.cut, stderr_cut: err.cut };
}
