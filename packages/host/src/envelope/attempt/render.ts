import { renderAudit } from '../render.js';
import { terminalLines } from '../../output/terminal.js';
import { agentStderrSection } from '../render.js';
import { agentStderrLines } from './agent-stderr.js';
import { EXIT, type AttemptResult } from './attempt.js';
import type { AttemptRun } from './record.js';

/**
 * Human output of `cordon run`/`resume`: the attempt line, what the agent reported (session,
 * turns, cost, duration), the error if any and, after an engine error, the last lines of the
 * agent's stderr (redacted, repeats counted), then the audit as `cordon check` prints it; what
 * the agent reported or wrote is escaped for the terminal.
 */
export function renderAttempt(result: AttemptResult): string {
  const { run, state } = result;
  const lines = [`attempt ${run.attempt} of ${state.max_attempts} (${run.agent}): ${state.phase}, exit ${result.exitCode}`];
  lines.push(`  agent: ${agentLine(run)}`);
  if (run.error) lines.push(`  error: ${firstLine(run.error)}`);
  // Why the agent failed is often only on its stderr (a client that cannot reach its API retries until the timeout).
  if (run.status === 'engine_error') lines.push(...agentStderrSection(agentStderrLines(run.stderr_tail), `attempt ${run.attempt}`).map((line) => `  ${line}`));
  if (run.leftover_processes > 0) lines.push(`  killed ${run.leftover_processes} process${run.leftover_processes === 1 ? '' : 'es'} the agent left running`);
  if (!result.audit) lines.push('audit: not run (the attempt was interrupted)');
  else if (state.phase === 'engine_error' || result.exitCode === EXIT.ENGINE_ERROR) {
    // The audit of an engine error is evidence, not a verdict: never the word "accepted".
    lines.push(renderAudit(result.audit).replace(/^accepted: /, 'audit passed, but the attempt failed: '));
  } else lines.push(renderAudit(result.audit));
  return terminalLines(lines.join('\n'));
}

/** `exit 0, session 9f…, 3 turns, $0.0004, 0.5 s (wall 0.9 s)` from what was recorded. */
export function agentLine(run: AttemptRun): string {
  const parts: string[] = [];
  if (run.exit_code !== null) parts.push(`exit ${run.exit_code}`);
  else if (run.signal) parts.push(`killed by ${run.signal}`);
  else if (run.status !== 'running') parts.push('did not run');
  if (run.agent_status) parts.push(run.agent_status);
  if (run.session_id) parts.push(`session ${run.session_id}`);
  if (run.turns !== null) parts.push(`${run.turns} turn${run.turns === 1 ? '' : 's'}`);
  if (run.cost_usd !== null) parts.push(`$${run.cost_usd.toFixed(4)}`);
  if (run.duration_ms !== null) parts.push(`${(run.duration_ms / 1000).toFixed(1)} s`);
  if (run.wall_ms !== null) parts.push(`wall ${(run.wall_ms / 1000).toFixed(1)} s`);
  return parts.join(', ');
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]!;
  return line.length < text.length ? `${line} …` : line;
}
