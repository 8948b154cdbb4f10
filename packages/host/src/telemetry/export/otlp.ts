import { context, trace, SpanKind, SpanStatusCode, ValueType, type Attributes } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import type { SampleRow, SessionRow, TelemetrySchema, ToolCallRow } from '../reduce/db/schema.js';
import type { Kysely } from 'kysely';

/** Instrumentation scope of everything cordon exports. */
const SCOPE = { name: '@cordon/host', version: '0.1.0' };

/** One stored session with its calls and samples, as {@link exportSessions} sends it. */
export interface ExportSession {
  readonly session: SessionRow;
  readonly calls: readonly ToolCallRow[];
  readonly samples: readonly Pick<SampleRow, 't' | 'mem_mb' | 'cpu_pct' | 'n_procs'>[];
}

/** Options of {@link exportSessions}. */
export interface OtlpOptions {
  /** The collector's base URL (`http://host:4318`); traces go to `/v1/traces`, metrics to `/v1/metrics`. */
  readonly url: string;
  /** Per request, ms (default 10,000). */
  readonly timeoutMs?: number;
}

/** What {@link exportSessions} sent. */
export interface ExportSummary {
  readonly sessions: number;
  readonly spans: number;
  readonly data_points: number;
}

/** Reads a session's calls and samples from the store (either dialect). */
export async function loadExportSession(db: Kysely<TelemetrySchema>, session: SessionRow): Promise<ExportSession> {
  const calls = await db.selectFrom('tool_calls').selectAll().where('session_id', '=', session.session_id).orderBy('seq').execute();
  const samples = await db.selectFrom('samples').select(['t', 'mem_mb', 'cpu_pct', 'n_procs']).where('session_id', '=', session.session_id).orderBy('seq').execute();
  return { session, calls, samples };
}

/** Span attributes of one tool call (OpenTelemetry GenAI `execute_tool` names where they exist; `cordon.*` otherwise). */
export function callAttributes(s: SessionRow, c: ToolCallRow): Attributes {
  const a: Attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': c.tool_name,
    'gen_ai.tool.call.id': c.call_key,
    'session.id': s.session_id,
    'cordon.tool.canonical': c.tool,
    'cordon.command.summary': c.command,
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
    'session.id': s.session_id,
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
  for (const [key, value] of Object.entries(maybe)) if (value !== null) a[key] = value;
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
    if (c.exit_status !== null && c.exit_status !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: c.exit_status });
    span.end(hr(c.end_ts));
  }
  root.end(hr(end));
  return memory.getFinishedSpans();
}

/**
 * The samples as OTLP gauge points: `process.memory.usage` (bytes, RSS summed over the agent's
 * process tree), `process.cpu.utilization` (fraction of one core, 1 = 100 %) and `process.count`
 * (processes in the tree), semantic-convention names, each point tagged `session.id`.
 */
function buildMetrics(items: readonly ExportSession[], machine: string): { metrics: ResourceMetrics; points: number } {
  const mem: Array<{ startTime: [number, number]; endTime: [number, number]; attributes: Attributes; value: number }> = [];
  const cpu: typeof mem = [];
  const procs: typeof mem = [];
  for (const item of items) {
    for (const sample of item.samples) {
      const at = hr(sample.t);
      const attributes = { 'session.id': item.session.session_id };
      mem.push({ startTime: at, endTime: at, attributes, value: Math.round(sample.mem_mb * 2 ** 20) });
      cpu.push({ startTime: at, endTime: at, attributes, value: sample.cpu_pct / 100 });
      procs.push({ startTime: at, endTime: at, attributes, value: sample.n_procs });
    }
  }
  const gauge = (name: string, description: string, unit: string, valueType: ValueType, dataPoints: typeof mem) => ({
    descriptor: { name, description, unit, valueType },
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPointType: DataPointType.GAUGE as const,
    dataPoints,
  });
  return {
    metrics: {
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
    },
    points: mem.length * 3,
  };
}

function send<T>(exporter: { export(items: T, done: (r: ExportResult) => void): void; shutdown(): Promise<void> }, items: T, what: string, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    exporter.export(items, (result) => {
      if (result.code === ExportResultCode.SUCCESS) resolve();
      else reject(new CordonError(ERROR_CODES.EXPORT_ERROR, `OTLP export of ${what} to ${url} failed: ${result.error?.message ?? 'unknown error'}; nothing local was changed`, { details: { url } }));
    });
  });
}

/**
 * `cordon export --otlp URL` (issue 20): sends each session as one trace (a root span and one
 * span per tool call, at their recorded times) and the samples as metrics, through the
 * OpenTelemetry JS SDK's OTLP/HTTP (JSON) exporters. Sessions of different machines are sent as
 * separate requests so each carries its machine as `host.name`.
 * @throws CordonError `CORDON_EXPORT_ERROR` when the receiver is unreachable, refuses, or does
 * not answer within `timeoutMs`; the local store is only read.
 */
export async function exportSessions(items: readonly ExportSession[], options: OtlpOptions): Promise<ExportSummary> {
  const base = options.url.replace(/\/+$/, '');
  const timeoutMillis = options.timeoutMs ?? 10_000;
  const byMachine = new Map<string, ExportSession[]>();
  for (const item of items) byMachine.set(item.session.machine, [...(byMachine.get(item.session.machine) ?? []), item]);
  let spans = 0;
  let points = 0;
  for (const [machine, group] of byMachine) {
    const traceExporter = new OTLPTraceExporter({ url: `${base}/v1/traces`, timeoutMillis });
    const metricExporter = new OTLPMetricExporter({ url: `${base}/v1/metrics`, timeoutMillis });
    try {
      const all = group.flatMap(buildSpans);
      if (all.length) await send(traceExporter, all, 'spans', options.url);
      spans += all.length;
      const m = buildMetrics(group, machine);
      if (m.points) await send(metricExporter, m.metrics, 'metrics', options.url);
      points += m.points;
    } finally {
      await traceExporter.shutdown().catch(() => undefined);
      await metricExporter.shutdown().catch(() => undefined);
    }
  }
  return { sessions: items.length, spans, data_points: points };
}
