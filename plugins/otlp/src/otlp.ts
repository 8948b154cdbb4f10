import { context, trace, SpanKind, SpanStatusCode, ValueType, type Attributes } from '@opentelemetry/api';
import { JsonMetricsSerializer, JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { connectionErrorWords, cutText, wellFormed, type ExportOptions, type ExportSession, type ExportSummary, type StoredSession as SessionRow, type StoredToolCall as ToolCallRow } from '@cordon/plugin-api';
import { bodyLine } from './body-line.js';

/** Instrumentation scope of everything cordon exports. */
const SCOPE = { name: '@cordon/otlp', version: '0.1.0' };

/** Span attributes of one tool call (OpenTelemetry GenAI `execute_tool` names where they exist; `cordon.*` otherwise). */
export function callAttributes(s: SessionRow, c: ToolCallRow): Attributes {
  const a: Attributes = {
    // Strings are the agent's: lone surrogates would make the JSON body invalid UTF-8 for the collector.
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': wellFormed(c.tool_name),
    'gen_ai.tool.call.id': wellFormed(c.call_key),
    'session.id': wellFormed(s.session_id),
    'cordon.tool.canonical': wellFormed(c.tool),
    'cordon.command.summary': wellFormed(c.command),
    'cordon.call.seq': c.seq,
    'cordon.samples': c.n_samples,
  };
  return withKnown(a, {
    'cordon.exit_status': c.exit_status,
    'process.exit.code': c.exit_code,
    'cordon.memory.peak_mib': c.peak_memory_mb,
    'cordon.memory.mean_mib': c.avg_memory_mb,
    'cordon.cpu.mean_pct': c.avg_cpu_pct,
    'cordon.hook.overhead_ms': c.hook_overhead_ms,
  });
}

/** Span attributes of a session's root span. */
export function sessionAttributes(s: SessionRow): Attributes {
  const a: Attributes = {
    'session.id': wellFormed(s.session_id),
    'cordon.tool_calls': s.n_toolcalls,
    'cordon.samples': s.n_samples,
    'cordon.tool_time_ms': s.tool_time_ms,
    'cordon.ended': s.ended === 1,
  };
  return withKnown(a, {
    'gen_ai.agent.name': s.agent,
    'cordon.memory.peak_mib': s.peak_memory_mb,
    'cordon.memory.mean_mib': s.avg_memory_mb,
    'cordon.cpu.mean_pct': s.avg_cpu_pct,
    'cordon.memory.baseline_mib': s.baseline_memory_mb,
  });
}

/** `a` plus the entries of `maybe` that are known: a null (not measured) is left out, never sent as 0. */
function withKnown(a: Attributes, maybe: Record<string, string | number | null>): Attributes {
  for (const [key, value] of Object.entries(maybe)) if (value !== null) a[key] = typeof value === 'string' ? wellFormed(value) : value;
  return a;
}

function hr(ms: number): [number, number] {
  const whole = Math.floor(ms / 1000);
  return [whole, Math.round((ms - whole * 1000) * 1e6)];
}

/** The spans of one session: a root span `session <id>` and one child `execute_tool <tool>` per call. */
function buildSpans(item: ExportSession): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'cordon', 'host.name': item.session.machine || 'unknown' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer(SCOPE.name, SCOPE.version);
  const s = item.session;
  const starts = [s.first_ts, ...item.calls.map((c) => c.start_ts)].filter((x): x is number => x !== null);
  const ends = [s.last_ts, ...item.calls.map((c) => c.end_ts)].filter((x): x is number => x !== null);
  const start = starts.length ? Math.min(...starts) : s.reduced_at;
  const end = ends.length ? Math.max(...ends) : start;
  const root = tracer.startSpan(`session ${s.session_id}`, { kind: SpanKind.INTERNAL, startTime: hr(start), attributes: sessionAttributes(s) }, context.active());
  const parent = trace.setSpan(context.active(), root);
  for (const c of item.calls) {
    const span = tracer.startSpan(`execute_tool ${c.tool_name}`, { kind: SpanKind.INTERNAL, startTime: hr(c.start_ts), attributes: callAttributes(s, c) }, parent);
    // A call that failed or was refused did not do its work: ERROR. An `unknown` outcome (the
    // agent reported none) stays UNSET, since nothing says it failed (OTel trace API, "Set Status").
    if (c.exit_status === 'failed' || c.exit_status === 'denied') span.setStatus({ code: SpanStatusCode.ERROR, message: c.exit_status });
    span.end(hr(c.end_ts));
  }
  root.end(hr(end));
  return memory.getFinishedSpans();
}

/** One sample of one session: what a metrics request is cut into. */
interface SessionSample {
  readonly sessionId: string;
  readonly sample: ExportSession['samples'][number];
}

/**
 * The samples as OTLP gauge points: `process.memory.usage` (bytes, RSS summed over the agent's
 * process tree), `process.cpu.utilization` (fraction of one core, 1 = 100 %) and `process.count`
 * (processes in the tree), semantic-convention names, each point tagged `session.id`.
 */
function buildMetrics(samples: readonly SessionSample[], machine: string): ResourceMetrics {
  const mem: Array<{ startTime: [number, number]; endTime: [number, number]; attributes: Attributes; value: number }> = [];
  const cpu: typeof mem = [];
  const procs: typeof mem = [];
  for (const { sessionId, sample } of samples) {
    const at = hr(sample.t);
    const attributes = { 'session.id': sessionId };
    mem.push({ startTime: at, endTime: at, attributes, value: Math.round(sample.mem_mb * 2 ** 20) });
    cpu.push({ startTime: at, endTime: at, attributes, value: sample.cpu_pct / 100 });
    procs.push({ startTime: at, endTime: at, attributes, value: sample.n_procs });
  }
  const gauge = (name: string, description: string, unit: string, valueType: ValueType, dataPoints: typeof mem) => ({
    descriptor: { name, description, unit, valueType },
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPointType: DataPointType.GAUGE as const,
    dataPoints,
  });
  return {
    resource: resourceFromAttributes({ 'service.name': 'cordon', 'host.name': machine || 'unknown' }),
    scopeMetrics: [
      {
        scope: SCOPE,
        metrics: [
          gauge('process.memory.usage', "RSS summed over the agent's process tree", 'By', ValueType.INT, mem),
          gauge('process.cpu.utilization', "CPU of the agent's process tree since the previous sample, fraction of one core", '1', ValueType.DOUBLE, cpu),
          gauge('process.count', "Processes in the agent's tree", '{process}', ValueType.INT, procs),
        ],
      },
    ],
  };
}

/**
 * The most bytes of one OTLP/HTTP request body. A store's sessions went as one request per
 * machine, so a large store made a body of gigabytes: more than V8 can hold in one string
 * (about 512 MiB, a RangeError before anything was sent) and far over what collectors take (the
 * OpenTelemetry Collector's OTLP/HTTP receiver refuses bodies over its `max_request_body_size`,
 * 20 MiB by default). Spans and samples are sent in requests of at most this size.
 */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** Items tried in one request before its size is known: spans, and samples (three points each). */
const FIRST_BATCH = { spans: 1000, samples: 4000 } as const;

/**
 * `items` serialised into request bodies of at most `maxBytes` each, in order: batches of `first`
 * items, a batch whose body is larger split in halves until it fits (a single item larger than
 * `maxBytes` goes alone; the collector says whether it takes it).
 */
export function* requestBodies<T>(items: readonly T[], serialize: (batch: readonly T[]) => Uint8Array, first: number, maxBytes = MAX_REQUEST_BYTES): Generator<{ body: Uint8Array; count: number }> {
  const fit = function* (batch: readonly T[]): Generator<{ body: Uint8Array; count: number }> {
    const body = serialize(batch);
    if (body.length <= maxBytes || batch.length === 1) {
      yield { body, count: batch.length };
      return;
    }
    const half = Math.ceil(batch.length / 2);
    yield* fit(batch.slice(0, half));
    yield* fit(batch.slice(half));
  };
  for (let at = 0; at < items.length; at += first) yield* fit(items.slice(at, at + first));
}

/** What one request's collector answered: how many items it rejected, and why. */
interface Answer {
  readonly rejected: number;
  readonly message?: string;
}

/**
 * POSTs one OTLP/HTTP JSON request (OTLP specification 1.x, "OTLP/HTTP": `Content-Type:
 * application/json`, 200 with an `Export*ServiceResponse` body) and reads its `partialSuccess`
 * (the SDK's exporters only log it). Every message names the URL redacted.
 * @throws Error when the collector is unreachable, answers a non-2xx status, or does not answer
 *   within `timeoutMs` (the host reports it as `CORDON_EXPORT_ERROR`).
 */
async function post(url: string, body: Uint8Array, what: string, options: ExportOptions): Promise<Uint8Array> {
  const { timeoutMs } = options;
  const fail = (why: string) => new Error(`OTLP export of ${what} to ${options.shownUrl} failed: ${options.redact(why)}; nothing local was changed`);
  const parsed = new URL(url);
  // Credentials in the URL go as HTTP Basic authentication (RFC 7617), never in the request line.
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (parsed.username || parsed.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}`;
    parsed.username = '';
    parsed.password = '';
  }
  let response: Response;
  try {
    response = await fetch(parsed, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (error) {
    const e = error as Error & { cause?: Error };
    if (e.name === 'TimeoutError') throw fail(`no answer within ${timeoutMs} ms`);
    // undici's bare `bad port`: the Fetch standard's "bad port" list (ports of other protocols: 9, 25, 6000 …), which fetch never connects to.
    if ((e.cause?.message ?? e.message) === 'bad port') throw fail(`port ${parsed.port} is one fetch refuses to connect to (a "bad port", kept for other protocols by the Fetch standard); run the collector on another port, such as OTLP/HTTP's 4318`);
    throw fail(connectionErrorWords(e) ?? e.cause?.message ?? e.message);
  }
  // Never the whole body: a refusal needs one line of it, an answer its `partialSuccess`; a
  // receiver streaming without end or sending gigabytes is cut off there, not read to the timeout.
  const data = await readBounded(response, response.ok ? ANSWER_MAX_BYTES : REFUSAL_MAX_BYTES);
  if (!response.ok) {
    // The status, and at most one short line of the body: never a whole HTML error page.
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    const line = bodyLine(Buffer.from(data).toString('utf8'));
    throw fail(line && line !== status.slice(5) && line !== response.statusText ? `${status}: ${line}` : status);
  }
  return data;
}

/** How much of a 2xx answer is read: an `Export*ServiceResponse` is a few hundred bytes. */
export const ANSWER_MAX_BYTES = 1024 * 1024;
/** How much of a refusal's body is read: its first line with text is all a message shows. */
export const REFUSAL_MAX_BYTES = 64 * 1024;

/**
 * At most `max` bytes of `response`'s body; the rest is not read (the stream is cancelled, so the
 * connection closes). A body that fails or times out midway gives what arrived before.
 */
export async function readBounded(response: Response, max: number): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value.subarray(0, max - size));
      size += Math.min(value.length, max - size);
    }
  } catch {
    // Aborted by the timeout or a reset connection: what arrived is all there is.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return new Uint8Array(Buffer.concat(chunks, size));
}

/** The `partialSuccess` of a response body (empty: nothing rejected). int64 counts may come as JSON strings (OTLP JSON encoding). */
function answer(partial: { rejectedSpans?: unknown; rejectedDataPoints?: unknown; errorMessage?: unknown } | undefined): Answer {
  if (!partial) return { rejected: 0 };
  const count = Number(partial.rejectedSpans ?? partial.rejectedDataPoints ?? 0);
  const message = typeof partial.errorMessage === 'string' && partial.errorMessage !== '' ? cutText(wellFormed(partial.errorMessage), 500) : undefined;
  return { rejected: Number.isFinite(count) && count > 0 ? Math.floor(count) : 0, ...(message ? { message } : {}) };
}

function parseResponse<R>(data: Uint8Array, deserialize: (d: Uint8Array) => R): R | undefined {
  if (data.length === 0) return undefined;
  try {
    return deserialize(data);
  } catch {
    // A 2xx with a body that is not OTLP JSON: accepted, nothing to read.
    return undefined;
  }
}

/**
 * `cordon export --otlp URL`: sends each session as one trace (a root span and one
 * span per tool call, at their recorded times) and the samples as metrics, OTLP/HTTP with the
 * JSON encoding of the OpenTelemetry JS SDK's serializers. Sessions of different machines are sent
 * as separate requests so each carries its machine as `host.name`, and no request body is larger
 * than {@link MAX_REQUEST_BYTES} (a machine's spans and samples are split over as many as needed). What the collector rejects
 * (`partialSuccess`) is counted in the summary. Messages name the URL with credentials redacted;
 * credentials in the URL are sent as Basic authentication.
 * @throws Error when the receiver is unreachable, refuses, does not answer within `timeoutMs`, or
 * accepts nothing of what was sent (the host reports it as `CORDON_EXPORT_ERROR`).
 */
export async function exportSessions(items: readonly ExportSession[], options: ExportOptions): Promise<ExportSummary> {
  const rawBase = options.url.replace(/\/+$/, '');
  const shown = options.shownUrl;
  const byMachine = new Map<string, ExportSession[]>();
  for (const item of items) byMachine.set(item.session.machine, [...(byMachine.get(item.session.machine) ?? []), item]);
  let spans = 0;
  let points = 0;
  let rejectedSpans = 0;
  let rejectedPoints = 0;
  const messages: string[] = [];
  const note = (a: Answer) => {
    if (a.message && !messages.includes(a.message)) messages.push(a.message);
    return a.rejected;
  };
  for (const [machine, group] of byMachine) {
    const all = group.flatMap(buildSpans);
    for (const { body, count } of requestBodies(all, (batch) => JsonTraceSerializer.serializeRequest([...batch]) ?? new Uint8Array(), FIRST_BATCH.spans)) {
      const data = await post(`${rawBase}/v1/traces`, body, 'spans', options);
      rejectedSpans += Math.min(count, note(answer(parseResponse(data, (d) => JsonTraceSerializer.deserializeResponse(d))?.partialSuccess)));
    }
    spans += all.length;
    const samples = group.flatMap((item) => item.samples.map((sample) => ({ sessionId: item.session.session_id, sample })));
    for (const { body, count } of requestBodies(samples, (batch) => JsonMetricsSerializer.serializeRequest(buildMetrics(batch, machine)) ?? new Uint8Array(), FIRST_BATCH.samples)) {
      const data = await post(`${rawBase}/v1/metrics`, body, 'metrics', options);
      rejectedPoints += Math.min(count * 3, note(answer(parseResponse(data, (d) => JsonMetricsSerializer.deserializeResponse(d))?.partialSuccess)));
    }
    points += samples.length * 3;
  }
  const summary: ExportSummary = { sessions: items.length, spans, data_points: points, rejected_spans: rejectedSpans, rejected_data_points: rejectedPoints, rejection_messages: messages };
  if (spans + points > 0 && rejectedSpans + rejectedPoints >= spans + points) {
    throw new Error(
      `OTLP export to ${shown}: the collector accepted nothing (rejected ${rejectedSpans} of ${spans} spans and ${rejectedPoints} of ${points} metric points${messages.length ? `: ${messages.join('; ')}` : ''}); nothing local was changed`,
    );
  }
  return summary;
}
