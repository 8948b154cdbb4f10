import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { runManaged, succeeded } from '../process.js';
import { splitCommand, type VerifySpec } from './spec.js';
import { cutUtf8Bytes, cutUtf8BytesEnd } from '@cordon/plugin-api';
import { clearStatus, setStatus } from '../../output/status.js';

/** Output kept per stream in the evidence, bytes (the BEKO2210/SkillQuarry cordon: 16 KiB): the first and the last half. */
export const EVIDENCE_BYTES = 16 * 1024;
/** Bytes kept from the start and from the end of a longer stream (the summary a test runner prints last survives). */
export const EVIDENCE_HALF = EVIDENCE_BYTES / 2;
/** Appended to evidence that was cut, by older cordon versions (records of that time still hold it). */
export const TRUNCATION_MARKER = '\n...[truncated by Cordon]';
/**
 * Where the middle of a longer stream was left out: `\n...[N bytes left out by cordon]...\n`
 * (`by Cordon` in records of older versions, still read).
 */
export const OMISSION_MARKER = /\n\.\.\.\[(\d+) bytes left out by [Cc]ordon\]\.\.\.\n/;

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
   * Each stream as UTF-8 (invalid bytes replaced): whole up to 16 KiB, else its first and last
   * 8 KiB joined by {@link OMISSION_MARKER}.
   */
  readonly stdout: string;
  readonly stderr: string;
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
      stdout: evidence(r.stdout, r.stdoutTail, r.stdoutBytes),
      stderr: evidence(r.stderr, r.stderrTail, r.stderrBytes),
      duration_ms: Math.round(r.durationMs),
    };
  } catch (error) {
    if (error instanceof CordonError && error.code === ERROR_CODES.PROCESS_ERROR) {
      return { ...base, passed: false, returncode: null, signal: null, start_error: error.message, stdout: '', stderr: '', duration_ms: 0 };
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

/**
 * The evidence of one stream: whole when it fits in {@link EVIDENCE_BYTES}, else its first and
 * last {@link EVIDENCE_HALF} bytes, each cut on a character boundary, with the count left out.
 */
function evidence(head: Buffer, tail: Buffer, total: number): string {
  if (total <= EVIDENCE_BYTES) return Buffer.concat([head, tail]).toString('utf8');
  const first = cutUtf8Bytes(head, EVIDENCE_HALF);
  const last = cutUtf8BytesEnd(tail, EVIDENCE_HALF);
  const left = total - Buffer.byteLength(first, 'utf8') - Buffer.byteLength(last, 'utf8');
  return `${first}\n...[${Math.max(0, left)} bytes left out by cordon]...\n${last}`;
}
