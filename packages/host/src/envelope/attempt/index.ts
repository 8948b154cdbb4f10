/**
 * Agent attempts inside an envelope: `cordon run` and `cordon resume` (the BEKO2210/SkillQuarry cordon, with the faults
 * docs/envelopes.md lists fixed). The runner of each agent comes from the `runners` registry
 * (plugin-api registries/runner.ts); everything agent-neutral lives here.
 */
export { runEnvelope, type RunRequest, type AttemptOptions } from './run.js';
export { resumeEnvelope, type ResumeOptions } from './resume.js';
export { runAttempt, EXIT, type AttemptInput, type AttemptResult } from './attempt.js';
export { resolveRunnerSettings, runnerSettingsProblem, runnerLimits, DEFAULT_TIMEOUT_SECONDS, DEFAULT_AGENT_OUTPUT_CAP, type RunnerSettings, type RunnerInput } from './options.js';
export { renderBrief, briefFor, recoveryFor, RECOVERY_PATHS, VERIFIER_OUTPUT_CHARS } from './prompt.js';
export { classifyAttempt, type AgentVerdict } from './classify.js';
export { superviseAgent, endTree, AGENT_KILL_GRACE_MS, type AgentExit, type SuperviseOptions } from './supervise.js';
export { ProcessTree, parseStat, SCAN_INTERVAL_MS, type TreeMember } from './tree.js';
export { InterruptTrap, signalExitCode, INTERRUPT_SIGNALS } from './signals.js';
export { staleRunReason, processAlive } from './stale.js';
export { renderAttempt, agentLine } from './render.js';
export { isAttemptRun, reportFields, startedRun, EXCERPT_CHARS, type AttemptRun, type AttemptStatus } from './record.js';
