import { cutText } from '@cordon/plugin-api';
import type { AgentReport } from '@cordon/plugin-api';
import { redactText } from '../../output/redact.js';
import { EXCERPT_CHARS } from './record.js';
import type { AgentExit } from './supervise.js';

/** The verdict on the agent process before the audit. */
export type AgentVerdict = { readonly kind: 'finished' } | { readonly kind: 'engine_error'; readonly reason: string } | { readonly kind: 'interrupted'; readonly reason: string };

/**
 * Classifies an attempt (the BEKO2210/SkillQuarry cordon step 5, with the faults envelopes.md lists fixed), first match wins:
 *
 * | what happened | verdict | reason |
 * |---|---|---|
 * | cordon was signalled | interrupted | `interrupted by SIGINT` |
 * | the binary could not start | engine_error | `cannot start 'x': ENOENT …` |
 * | the timeout fired | engine_error | `<agent> timed out after N s` |
 * | an output stream passed the cap | engine_error | `<agent> exceeded the N-byte output limit` |
 * | a signal ended it | engine_error | `<agent> was killed by SIGKILL` |
 * | exit ≠ 0 | engine_error | `<agent> exited N: <its error, else stderr>` |
 * | exit 0 and no readable report | engine_error | `<agent> exited 0 but printed no JSON events on stdout` (what the runner found missing) |
 * | exit 0 but the report says it failed | engine_error | `<agent> reported an error (exit 0): <its error>` |
 * | exit 0 and a good report | finished | — |
 *
 * So an API error Claude Code reports with `is_error: true` is an engine error even when the
 * process exits 0 (anthropics/claude-code#79500). Reasons keep 2,000 characters, secrets redacted.
 */
export function classifyAttempt(title: string, exit: AgentExit, report: AgentReport | undefined, interruptedBy: NodeJS.Signals | undefined, timeoutSeconds: number, outputCap: number): AgentVerdict {
  if (interruptedBy) return { kind: 'interrupted', reason: `interrupted by ${interruptedBy}` };
  if (exit.startError) return engine(exit.startError);
  if (exit.timedOut) return engine(`${title} timed out after ${timeoutSeconds} s`);
  if (exit.outputLimited) return engine(`${title} exceeded the ${outputCap}-byte output limit`);
  if (exit.exitCode === null) return engine(`${title} was killed by ${exit.signal ?? 'a signal'}`);
  const own = report && !report.ok && report.error ? [report.status && report.status !== 'success' ? report.status : undefined, report.error].filter(Boolean).join(': ') : '';
  if (exit.exitCode !== 0) return engine(`${title} exited ${exit.exitCode}: ${own || exit.stderr.trim() || '(no output on stderr)'}`);
  // An agent that printed nothing readable reported no error: say what happened instead.
  if (!report || report.unreported) return engine(`${title} exited 0 but ${report?.error || 'printed no readable result'}`);
  if (!report.ok) return engine(`${title} reported an error (exit 0): ${own || 'no error text'}`);
  return { kind: 'finished' };
}

function engine(reason: string): AgentVerdict {
  // The reason may hold the agent's stderr: redacted as every record of it is (output/redact.ts).
  return { kind: 'engine_error', reason: cutText(redactText(reason), EXCERPT_CHARS) };
}
