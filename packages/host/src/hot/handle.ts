import { cutText, type Dialect, type HookReply, type Logger, type NativeEvent, type NativeToolAfter, type NativeToolBefore, type ToolCall, type ToolDecision, type ToolFeedback, type ToolResult } from '@cordon/plugin-api';
import type { CordonHost } from '../bus/host.js';
import { appendMarker, markerField, type Marker, type MarkerEvent, MARKER_SCHEMA_VERSION } from '../telemetry/markers.js';
import { sessionDir } from '../telemetry/session-dir.js';
import { epochMs, sinceStartMs } from '../util/clock.js';
import { findAgentPid } from './agent-pid.js';
import { claimOrdinal, hashCallKey, inputHash, keyedInput } from './call-key.js';
import { chooseDialect } from './choose-dialect.js';
import { dialectContext } from './dialect-context.js';
import { loopBreak } from '../loop-breaker/index.js';
import { liveEnvelopeDecision } from './live-envelope.js';
import { oversizedLiveDecision } from './oversized.js';
import type { OversizedPayload } from './stdin.js';
import { commandText, errorText, storedCommand } from './summary.js';

/** Input of {@link handleHookPayload}. */
export interface HandleOptions {
  /** The plugin host with every plugin applied (`loadHostDirect()` in the hook process). */
  readonly host: CordonHost;
  /** `--agent`; absent means sniff the payload. */
  readonly agent?: string;
  /** Environment of the hook process (`CLAUDE_PID` and friends). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where the ancestry walk starts (default `process.ppid`). */
  readonly parentPid?: number;
  /** Milliseconds since the hook process started (default `process.uptime()`). */
  readonly elapsedMs?: () => number;
  /** Logger for failures (default the host's). */
  readonly log?: Logger;
  /**
   * Told what is about to happen, for a caller that must finish the job if this call is stopped
   * (the bus thread, `bus-thread.ts`): `taps` right before a tool hook's taps run, with the
   * marker that is written if they decide nothing; `write` right before a marker is appended.
   */
  readonly progress?: (step: HandleStep) => void;
  /**
   * Set when the payload was over the hook's size limit and is its reduced form (`stdin.ts`):
   * its size in bytes and where it was cut. The live envelope then judges it as
   * `oversized.ts` says, and every marker of the call records `payload_bytes`.
   */
  readonly oversized?: OversizedPayload & { readonly bytes: number };
}

/** What {@link HandleOptions.progress} hears. */
export type HandleStep = { readonly kind: 'taps'; readonly hook: 'beforeToolCall' | 'afterToolCall'; readonly fallback: Marker } | { readonly kind: 'write' };

/** What the hook process should do, and what it recorded. */
export interface HookOutcome {
  /** Written to stdout; `''` unless returning a decision or after-call feedback. */
  readonly stdout: string;
  readonly stderr: string;
  /** 0 unless a dialect blocks by exit code. */
  readonly exitCode: number;
  /** The dialect that handled the payload. */
  readonly agent?: string;
  /** The normalised event, when the dialect recognised one. */
  readonly event?: NativeEvent;
  /** The marker appended, when one was. */
  readonly marker?: Marker;
  /** The `beforeToolCall` decision, when a tap made one. */
  readonly decision?: ToolDecision;
  /** Why nothing was recorded, when nothing was. */
  readonly skipped?: string;
}

/** What a caller of `write` supplies; the common fields (time, session, agent, pids, overhead) are added. */
type MarkerFields = Omit<Marker, 'v' | 'ts' | 'session_id' | 'agent' | 'native_event' | 'hook_overhead_ms' | 'hook_pid' | 'agent_pid'>;

/** Longest after-call feedback handed to an agent, in characters: it all goes into the model's context. */
export const MAX_FEEDBACK_CHARS = 8000;

const SILENT: Pick<HookOutcome, 'stdout' | 'stderr' | 'exitCode'> = Object.freeze({ stdout: '', stderr: '', exitCode: 0 });

const MARKER_EVENTS: Record<NativeEvent['kind'], MarkerEvent> = {
  'session.start': 'session_start',
  'session.end': 'session_end',
  'turn.start': 'turn_start',
  'turn.end': 'turn_end',
  'tool.before': 'tool_start',
  'tool.after': 'tool_end',
};

/**
 * Handles one parsed hook payload (docs/ARCHITECTURE.md "The hot paths"): picks the dialect, normalises the
 * payload, answers a write outside an armed live envelope (`live-envelope.ts`), fires
 * `beforeToolCall` / `afterToolCall` with canonical events, appends one marker
 * (MARKERS.md) and returns the reply in the agent's own format. Never throws: a plugin, dialect
 * or disk failure is logged and the outcome falls back to exit 0 with empty stdout (fail open).
 */
export async function handleHookPayload(payload: Readonly<Record<string, unknown>>, options: HandleOptions): Promise<HookOutcome> {
  const { host, env } = options;
  const log = options.log ?? host.log;
  const elapsed = options.elapsedMs ?? sinceStartMs;
  const choice = chooseDialect(host, options.agent, payload, env);
  if (!choice.entry) {
    log.warn('hook payload skipped', { reason: choice.reason, hook_event_name: payload.hook_event_name });
    return { ...SILENT, skipped: choice.reason };
  }
  const agent = choice.entry.name;
  let dialect: Dialect;
  let event: NativeEvent | undefined;
  try {
    dialect = await choice.entry.load();
    event = await dialect.parse(payload, dialectContext(env));
  } catch (error) {
    log.error('dialect failed on a payload', { agent, error: describe(error) });
    return { ...SILENT, agent, skipped: `dialect ${agent} failed: ${describe(error)}` };
  }
  if (!event) {
    log.debug('event not recorded', { agent, hook_event_name: payload.hook_event_name });
    return { ...SILENT, agent, skipped: `event ${String(payload.hook_event_name)} is not recorded` };
  }
  const agentPid = findAgentPid(dialect, env, options.parentPid);
  const dataDir = host.paths.dataDir;
  const build = (fields: MarkerFields): Marker => {
    const overhead = elapsed();
    // Key order is for people reading the file: what and when first, then the call, then the process.
    const { event: kind, ...rest } = fields;
    const marker: Marker = {
      v: MARKER_SCHEMA_VERSION,
      event: kind,
      ts: round3(epochMs()),
      session_id: event.sessionId,
      agent,
      native_event: event.nativeEvent,
      ...rest,
      ...(options.oversized ? { payload_bytes: options.oversized.bytes } : {}),
      ...(event.cwd !== undefined ? { cwd: markerField(event.cwd) } : {}),
      hook_overhead_ms: round3(overhead),
      ...(agentPid !== undefined ? { agent_pid: agentPid } : {}),
      hook_pid: process.pid,
    };
    return marker;
  };
  const write = (fields: MarkerFields): Marker | undefined => {
    const marker = build(fields);
    options.progress?.({ kind: 'write' });
    try {
      appendMarker(dataDir, marker);
      return marker;
    } catch (error) {
      log.error('marker append failed', { agent, event: marker.event, error: describe(error) });
      return undefined;
    }
  };

  const taps = (hook: 'beforeToolCall' | 'afterToolCall', fields: MarkerFields): void => options.progress?.({ kind: 'taps', hook, fallback: build(fields) });
  const step: Step = { host, log, agent, agentPid, dataDir, env, payload, write, taps, ...(options.oversized ? { oversized: options.oversized } : {}) };
  if (event.kind === 'tool.before') return before(event, dialect, step);
  if (event.kind === 'tool.after') return after(event, dialect, step);
  const marker = write({ event: MARKER_EVENTS[event.kind] });
  return { ...SILENT, agent, event, marker };
}

interface Step {
  readonly host: CordonHost;
  readonly log: Logger;
  readonly agent: string;
  readonly agentPid?: number;
  readonly dataDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly oversized?: HandleOptions['oversized'];
  readonly write: (fields: MarkerFields) => Marker | undefined;
  /** Announces a tool hook's taps with the marker written if they decide nothing ({@link HandleOptions.progress}). */
  readonly taps: (hook: 'beforeToolCall' | 'afterToolCall', fallback: MarkerFields) => void;
}

/** Builds the canonical call for a tool event; `callKey` filled by the caller. */
function toolCall(event: NativeToolBefore | NativeToolAfter, dialect: Dialect, step: Step, callKey: string): ToolCall {
  let canonical: ToolCall['canonicalTool'] = 'other';
  try {
    canonical = dialect.canonicalTool(event.toolName, event.toolInput);
  } catch {
    canonical = 'other';
  }
  return {
    agent: step.agent,
    sessionId: event.sessionId,
    callKey,
    callKeySource: event.callId !== undefined ? 'agent' : 'hash',
    toolName: event.toolName,
    canonicalTool: canonical,
    toolInput: event.toolInput,
    command: commandText(shownInput(event)),
    ...(event.cwd !== undefined ? { cwd: event.cwd } : {}),
    ...(step.agentPid !== undefined ? { agentPid: step.agentPid } : {}),
    nativeEvent: event.nativeEvent,
    raw: step.payload,
  };
}

/** The input a call's command is read from: as sent when it was not an object (a string, an array, `null`), else the object. */
function shownInput(event: Parameters<typeof keyedInput>[0]): unknown {
  const input = keyedInput(event);
  return input === undefined ? event.toolInput : input;
}

function toolFields(call: ToolCall) {
  // Taps got the whole command, call id and tool name; the marker stores them bounded.
  return { call_key: markerField(call.callKey), call_key_source: call.callKeySource, tool_name: markerField(call.toolName), tool: call.canonicalTool, command: storedCommand(call.command) } as const;
}

async function before(event: NativeToolBefore, dialect: Dialect, step: Step): Promise<HookOutcome> {
  const dir = sessionDir(step.dataDir, event.sessionId);
  const hash = event.callId === undefined ? inputHash(event.sessionId, event.toolName, keyedInput(event)) : undefined;
  let callKey = event.callId ?? '';
  if (hash !== undefined) callKey = claimKey(dir, hash, 'start', step.log);
  const call = toolCall(event, dialect, step, callKey);
  let failure: { plugin_failure: string } | undefined;
  // The live envelope answers first (a write outside the armed policy never reaches a plugin's rewrite).
  let decision: ToolDecision | undefined = step.oversized ? await oversizedLiveDecision(dialect, event, step.payload, step.oversized, step.env, step.log) : liveEnvelopeDecision(dialect, event, step.log);
  if (!decision) {
    step.taps('beforeToolCall', { event: 'tool_start', ...toolFields(call) });
    try {
      // No tap, no call: tapable compiles each hook's caller with `new Function` on its first call,
      // code no cache can hold, and most hook processes have nothing tapped.
      const before = step.host.hooks.beforeToolCall;
      decision = before.taps.length ? validDecision(await before.promise(call), step.log) : undefined;
    } catch (error) {
      failure = pluginOf(error);
      step.log.error('beforeToolCall tap failed; the call proceeds', { agent: step.agent, call_key: callKey, error: describe(error), ...failure });
    }
  }
  if (!decision) {
    const marker = step.write({ event: 'tool_start', ...toolFields(call), ...failure });
    return { ...SILENT, agent: step.agent, event, marker };
  }
  let reply: HookReply;
  try {
    reply = dialect.reply(decision, call);
  } catch (error) {
    step.log.error('dialect could not write the decision; the call proceeds', { agent: step.agent, error: describe(error) });
    const marker = step.write({ event: 'tool_start', ...toolFields(call) });
    return { ...SILENT, agent: step.agent, event, marker };
  }
  const by = decision.by !== undefined ? { decided_by: decision.by } : {};
  if (decision.kind === 'deny') {
    // The agent runs nothing and fires no after event: keep the FIFO end slots in step.
    if (hash !== undefined) claimKey(dir, hash, 'end', step.log);
    const marker = step.write({ event: 'tool_denied', ...toolFields(call), exit_status: 'denied', decision: 'deny', error: errorText(decision.reason), ...by });
    return { stdout: reply.stdout, stderr: reply.stderr ?? '', exitCode: reply.exitCode, agent: step.agent, event, marker, decision };
  }
  let rewritten = call;
  if (hash !== undefined) {
    // The after event carries the rewritten input, so the start is keyed on it (the Gemini CLI hooks reference: Gemini merges it).
    const input = { ...event.toolInput, ...decision.toolInput };
    claimKey(dir, hash, 'end', step.log);
    const key = claimKey(dir, inputHash(event.sessionId, event.toolName, input), 'start', step.log);
    rewritten = { ...call, callKey: key, toolInput: input, command: commandText(input) };
  } else {
    rewritten = { ...call, toolInput: decision.toolInput, command: commandText(decision.toolInput) };
  }
  // The marker keeps the command the agent asked for; what runs instead is `rewritten_command`
  // (a guard's `cordon control run -- …` wrapper must not hide the call's own command in reports).
  const marker = step.write({ event: 'tool_start', ...toolFields(rewritten), command: storedCommand(call.command), rewritten_command: storedCommand(rewritten.command), decision: 'rewrite', ...by });
  return { stdout: reply.stdout, stderr: reply.stderr ?? '', exitCode: reply.exitCode, agent: step.agent, event, marker, decision };
}

async function after(event: NativeToolAfter, dialect: Dialect, step: Step): Promise<HookOutcome> {
  let callKey = event.callId ?? '';
  if (event.callId === undefined) callKey = claimKey(sessionDir(step.dataDir, event.sessionId), inputHash(event.sessionId, event.toolName, keyedInput(event)), 'end', step.log);
  const call = toolCall(event, dialect, step, callKey);
  let result: ToolResult = {
    call,
    status: event.status,
    ...(event.exitCode !== undefined ? { exitCode: event.exitCode } : {}),
    ...(event.durationMs !== undefined ? { durationMs: event.durationMs } : {}),
    ...(event.error !== undefined ? { error: errorText(event.error) } : {}),
  };
  const endFields = (r: ToolResult): MarkerFields => ({
    event: 'tool_end',
    ...toolFields(call),
    exit_status: r.status,
    ...(r.exitCode !== undefined ? { exit_code: r.exitCode } : {}),
    ...(r.durationMs !== undefined ? { duration_ms: r.durationMs } : {}),
    ...(r.error !== undefined ? { error: errorText(r.error) } : {}),
  });
  let failure: { plugin_failure: string } | undefined;
  step.taps('afterToolCall', endFields(result));
  try {
    const after = step.host.hooks.afterToolCall;
    const annotated = after.taps.length ? await after.promise(result) : result;
    if (annotated && typeof annotated === 'object') result = annotated;
  } catch (error) {
    failure = pluginOf(error);
    step.log.error('afterToolCall tap failed', { agent: step.agent, call_key: callKey, error: describe(error), ...failure });
  }
  const feedback = validFeedback(result.feedback, step.log);
  let loop: ReturnType<typeof loopBreak>;
  // Only where the agent can read after-call text: elsewhere the breaker has nothing to say it with.
  if (dialect.replyAfter) {
    loop = loopBreak(result, storedCommand(call.command), { dataDir: step.dataDir, configDir: step.host.paths.configDir, env: step.env, log: step.log });
    if (loop) feedback.push({ text: loop.text, by: 'cordon' });
  }
  let reply: HookReply | undefined;
  if (feedback.length && dialect.replyAfter) {
    try {
      reply = dialect.replyAfter(cutText(feedback.map((f) => f.text).join('\n\n'), MAX_FEEDBACK_CHARS), result);
    } catch (error) {
      step.log.error('dialect could not write the after-call feedback; the agent gets none', { agent: step.agent, error: describe(error) });
    }
  }
  // A dialect may answer an empty reply for an event that cannot carry text: nothing was given then.
  const given = reply !== undefined && reply.stdout !== '' ? reply : undefined;
  const loopFields = given && loop ? { loop_failures: loop.failures, ...(loop.repeat ? { loop_repeat: true } : {}) } : {};
  const byFields = given ? { feedback_by: feedback.map((f) => f.by ?? 'unknown') } : {};
  const marker = step.write({ ...endFields(result), ...failure, ...loopFields, ...byFields });
  if (!given) return { ...SILENT, agent: step.agent, event, marker };
  return { stdout: given.stdout, stderr: given.stderr ?? '', exitCode: given.exitCode, agent: step.agent, event, marker };
}

/** The well-formed feedback entries a tap left on a result (non-empty `text`); anything else is logged and dropped. */
function validFeedback(value: unknown, log: Logger): ToolFeedback[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    log.error('afterToolCall feedback is not a list; ignored', { value: describe(value) });
    return [];
  }
  const out: ToolFeedback[] = [];
  for (const f of value) {
    const entry = f as Partial<ToolFeedback> | null;
    if (entry && typeof entry.text === 'string' && entry.text.trim() !== '') out.push({ text: entry.text, ...(typeof entry.by === 'string' ? { by: entry.by } : {}) });
    else log.error('afterToolCall feedback entry without text; ignored', { value: describe(f) });
  }
  return out;
}

/** Claims a FIFO key; on a disk failure falls back to the bare hash (pairing then degrades, the hook goes on). */
function claimKey(dir: string, hash: string, phase: 'start' | 'end', log: Logger): string {
  try {
    return hashCallKey(hash, claimOrdinal(dir, hash, phase));
  } catch (error) {
    log.error('pairing slot could not be claimed', { dir, error: describe(error) });
    return `h:${hash}`;
  }
}

/** Accepts only well-formed decisions; anything else is logged and ignored (fail open). */
function validDecision(value: unknown, log: Logger): ToolDecision | undefined {
  if (value === undefined || value === null) return undefined;
  const d = value as Partial<ToolDecision> & Record<string, unknown>;
  if (d.kind === 'deny') {
    const reason = typeof d.reason === 'string' && d.reason.trim() !== '' ? d.reason : 'denied by a cordon policy';
    return { kind: 'deny', reason, ...(typeof d.by === 'string' ? { by: d.by } : {}) };
  }
  if (d.kind === 'rewrite' && d.toolInput && typeof d.toolInput === 'object' && !Array.isArray(d.toolInput)) {
    return { kind: 'rewrite', toolInput: d.toolInput as Record<string, unknown>, ...(typeof d.reason === 'string' ? { reason: d.reason } : {}), ...(typeof d.by === 'string' ? { by: d.by } : {}) };
  }
  log.error('beforeToolCall returned something that is not a decision; ignored', { value: describe(value) });
  return undefined;
}

/** `{plugin_failure}` naming the plugin a tap error came from (`CordonPluginError.plugin`), when it names one. */
function pluginOf(error: unknown): { plugin_failure: string } | undefined {
  const plugin = (error as { plugin?: unknown } | null)?.plugin;
  return typeof plugin === 'string' && plugin !== '' ? { plugin_failure: plugin } : undefined;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
