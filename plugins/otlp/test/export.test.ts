import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HANG_BOUND_MS, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../test/support/cli.js';
import { call, marker, samples } from '../../../packages/host/test/telemetry/reduce/helpers.js';
import { MAX_REQUEST_BYTES } from '../src/otlp.js';

/** `cordon export --otlp` against a loopback OTLP/HTTP receiver decoding the JSON encoding of the OTLP protobuf messages. */

const T = 1_800_000_000_000;
let sandbox: Sandbox;
let servers: Server[] = [];
beforeEach(() => {
  sandbox = makeSandbox('cordon-otlp-');
  linkPlugins(sandbox.dataDir, ['otlp']);
});
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  sandbox.cleanup();
});

interface Received {
  path: string;
  contentType: string | undefined;
  body: any;
  /** The body's size as received, bytes. */
  bytes: number;
}

/** A receiver on 127.0.0.1 that records every request; `mode` 'slow' never answers. */
async function receiver(mode: 'ok' | 'slow' | ((path: string) => { status: number; body: unknown }) = 'ok'): Promise<{ url: string; got: Received[]; auth: Array<string | undefined> }> {
  const auth: Array<string | undefined> = [];
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', contentType: req.headers['content-type'], body: JSON.parse(Buffer.concat(chunks).toString('utf8')), bytes: Buffer.concat(chunks).length });
      auth.push(req.headers.authorization);
      if (mode === 'slow') return;
      const answer = mode === 'ok' ? { status: 200, body: {} } : mode(req.url ?? '');
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    });
  });
  server.on('connection', (socket) => server.once('close', () => socket.destroy()));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, got, auth };
}

/** OTLP JSON attribute list → plain object. */
function attrs(list: Array<{ key: string; value: Record<string, unknown> }>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list) {
    const [kind, v] = Object.entries(value)[0]!;
    out[key] = kind === 'intValue' ? Number(v) : v;
  }
  return out;
}

const nanos = (ms: number) => String(BigInt(Math.round(ms * 1000)) * 1000n);

/** A real session: two calls (one failing), samples inside and outside them. */
function recordSession(): void {
  const data = sandbox.dataDir;
  marker(data, 'sess-otlp', 'session_start', T);
  call(data, 'sess-otlp', 'k1', T + 1000, T + 3000, { command: 'npm test', tool_name: 'Bash', tool: 'shell' });
  call(data, 'sess-otlp', 'k2', T + 4000, T + 4500, { command: 'cat x', tool_name: 'Read', tool: 'read', exit_status: 'failed', exit_code: 2 });
  samples(data, 'sess-otlp', [
    { t: T + 500, mb: 100, cpu: 10, procs: 1 },
    { t: T + 1500, mb: 300, cpu: 150, procs: 3 },
    { t: T + 2500, mb: 200, cpu: 50, procs: 2 },
    { t: T + 4200, mb: 120, cpu: 20, procs: 1 },
  ]);
  marker(data, 'sess-otlp', 'session_end', T + 5000);
}

describe('cordon export --otlp', () => {
  it('span status: ERROR for a failed or refused call, UNSET for ok and for an outcome the agent did not report', async () => {
    const data = sandbox.dataDir;
    marker(data, 'sess-st', 'session_start', T);
    const outcomes = ['ok', 'failed', 'denied', 'unknown'] as const;
    outcomes.forEach((exit_status, i) => call(data, 'sess-st', `s${i}`, T + 1000 * (i + 1), T + 1000 * (i + 1) + 500, { command: `step ${i}`, tool_name: 'Bash', tool: 'shell', exit_status }));
    marker(data, 'sess-st', 'session_end', T + 6000);
    const rx = await receiver();
    const r = await runCordon(['export', '--otlp', rx.url, '--session', 'sess-st'], { env: sandbox.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const spans = rx.got.filter((g) => g.path === '/v1/traces').flatMap((g) => g.body.resourceSpans[0].scopeSpans.flatMap((s: { spans: unknown[] }) => s.spans)) as any[];
    const kids = spans.filter((s) => s.parentSpanId).sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)));
    expect(kids.map((k) => [attrs(k.attributes)['cordon.exit_status'], k.status?.code ?? 0, k.status?.message ?? ''])).toEqual([
      ['ok', 0, ''],
      ['failed', 2, 'failed'],
      ['denied', 2, 'denied'],
      ['unknown', 0, ''],
    ]);
  });

  it('sends the session as one trace, each call as a child span, every sample as metric points', async () => {
    recordSession();
    const rx = await receiver();
    const r = await runCordon(['export', '--otlp', rx.url, '--session', 'sess-otlp'], { env: { ...sandbox.env, CORDON_MACHINE: 'box-1' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('exported 1 session(s): 3 spans, 12 metric points');
    const traces = rx.got.filter((g) => g.path === '/v1/traces');
    const metrics = rx.got.filter((g) => g.path === '/v1/metrics');
    expect(traces).toHaveLength(1);
    expect(metrics).toHaveLength(1);
    expect(traces[0]!.contentType).toBe('application/json');

    const rs = traces[0]!.body.resourceSpans;
    expect(rs).toHaveLength(1);
    expect(attrs(rs[0].resource.attributes)).toMatchObject({ 'service.name': 'cordon', 'host.name': 'box-1' });
    const spans = rs[0].scopeSpans.flatMap((s: { spans: unknown[] }) => s.spans) as any[];
    expect(spans).toHaveLength(3);
    const root = spans.find((s) => !s.parentSpanId)!;
    const kids = spans.filter((s) => s.parentSpanId).sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)));
    expect(root.name).toBe('session sess-otlp');
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(kids.every((k) => k.parentSpanId === root.spanId)).toBe(true);
    expect([root.startTimeUnixNano, root.endTimeUnixNano]).toEqual([nanos(T), nanos(T + 5000)]);
    expect(attrs(root.attributes)).toEqual({
      'session.id': 'sess-otlp',
      'gen_ai.agent.name': 'claude-code',
      'cordon.tool_calls': 2,
      'cordon.samples': 4,
      'cordon.tool_time_ms': 2500,
      'cordon.ended': true,
      'cordon.memory.peak_mib': 300,
      'cordon.memory.mean_mib': 180,
      'cordon.cpu.mean_pct': 57.5,
      'cordon.memory.baseline_mib': expect.any(Number),
    });
    expect(kids.map((k) => k.name)).toEqual(['execute_tool Bash', 'execute_tool Read']);
    expect([kids[0].startTimeUnixNano, kids[0].endTimeUnixNano]).toEqual([nanos(T + 1000), nanos(T + 3000)]);
    expect(attrs(kids[0].attributes)).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'Bash',
      'gen_ai.tool.call.id': 'k1',
      'session.id': 'sess-otlp',
      'cordon.tool.canonical': 'shell',
      'cordon.command.summary': 'npm test',
      'cordon.call.seq': 1,
      'cordon.samples': 2,
      'cordon.exit_status': 'ok',
      'cordon.memory.peak_mib': 300,
      'cordon.memory.mean_mib': 250,
      'cordon.cpu.mean_pct': 100,
      'cordon.hook.overhead_ms': 40,
    });
    expect(kids[0].status?.code ?? 0).toBe(0);
    expect(attrs(kids[1].attributes)).toMatchObject({ 'gen_ai.tool.name': 'Read', 'cordon.tool.canonical': 'read', 'cordon.exit_status': 'failed', 'process.exit.code': 2, 'cordon.memory.peak_mib': 120, 'cordon.samples': 1 });
    expect(kids[1].status).toMatchObject({ code: 2, message: 'failed' });

    const ms = metrics[0]!.body.resourceMetrics[0].scopeMetrics.flatMap((s: { metrics: unknown[] }) => s.metrics) as any[];
    const byName = Object.fromEntries(ms.map((m) => [m.name, m]));
    expect(Object.keys(byName).sort()).toEqual(['process.count', 'process.cpu.utilization', 'process.memory.usage']);
    expect(byName['process.memory.usage'].unit).toBe('By');
    const points = (name: string) => byName[name].gauge.dataPoints.map((p: any) => [p.timeUnixNano, p.asInt !== undefined ? Number(p.asInt) : p.asDouble, attrs(p.attributes)['session.id']]);
    expect(points('process.memory.usage')).toEqual([100, 300, 200, 120].map((mb, i) => [nanos(T + [500, 1500, 2500, 4200][i]!), mb * 2 ** 20, 'sess-otlp']));
    expect(points('process.cpu.utilization').map((p: unknown[]) => p[1])).toEqual([0.1, 1.5, 0.5, 0.2]);
    expect(points('process.count').map((p: unknown[]) => p[1])).toEqual([1, 3, 2, 1]);
  });

  it('a large store goes in requests of at most MAX_REQUEST_BYTES, every span and sample once', async () => {
    // 3,000 calls with 2,000-character commands and 12,000 samples: about 9 MB of spans and 9 MB
    // of points, which went as one request each.
    const data = sandbox.dataDir;
    marker(data, 'sess-big', 'session_start', T);
    const command = `make ${'x'.repeat(1995)}`;
    for (let i = 0; i < 3000; i++) call(data, 'sess-big', `k${i}`, T + i * 10, T + i * 10 + 5, { command, tool_name: 'Bash', tool: 'shell' });
    samples(data, 'sess-big', Array.from({ length: 12_000 }, (_, i) => ({ t: T + i * 3, mb: 100 + (i % 50), cpu: 10, procs: 1 })));
    marker(data, 'sess-big', 'session_end', T + 37_000);
    const sizes: Record<string, number[]> = {};
    const rx = await receiver();
    const r = await runCordon(['export', '--otlp', rx.url, '--session', 'sess-big', '--json'], { env: sandbox.env, timeoutMs: 300_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ spans: 3001, data_points: 36_000, rejected_spans: 0, rejected_data_points: 0 });
    for (const g of rx.got) (sizes[g.path] ??= []).push(g.bytes);
    expect(sizes['/v1/traces']!.length).toBeGreaterThan(1);
    expect(sizes['/v1/metrics']!.length).toBeGreaterThan(1);
    for (const size of [...sizes['/v1/traces']!, ...sizes['/v1/metrics']!]) expect(size).toBeLessThanOrEqual(MAX_REQUEST_BYTES);
    const spans = rx.got.filter((g) => g.path === '/v1/traces').flatMap((g) => g.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((s: { spans: unknown[] }) => s.spans))) as any[];
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(3001);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const memory = rx.got
      .filter((g) => g.path === '/v1/metrics')
      .flatMap((g) => g.body.resourceMetrics[0].scopeMetrics.flatMap((s: { metrics: any[] }) => s.metrics))
      .filter((m: any) => m.name === 'process.memory.usage')
      .flatMap((m: any) => m.gauge.dataPoints.map((p: any) => p.timeUnixNano));
    expect(memory).toEqual(Array.from({ length: 12_000 }, (_, i) => nanos(T + i * 3)));
  });

  it('a receiver that is down or never answers fails the export clearly (exit 2) and leaves the local store as it was', async () => {
    recordSession();
    expect((await runCordon(['reduce', '--all'], { env: sandbox.env })).exitCode).toBe(0);
    const dbPath = join(sandbox.dataDir, 'telemetry.sqlite3');
    const count = () => {
      const db = new Database(dbPath, { readonly: true });
      try {
        return db.prepare('select (select count(*) from sessions) || \'/\' || (select count(*) from tool_calls) || \'/\' || (select count(*) from samples)').pluck().get();
      } finally {
        db.close();
      }
    };
    expect(count()).toBe('1/2/4');
    const down = await receiver();
    const downUrl = down.url;
    await new Promise((r) => servers.pop()!.close(r));
    let r = await runCordon(['export', '--otlp', downUrl, '--timeout', '2'], { env: sandbox.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.replace(/\s+/g, " ")).toMatch(/OTLP export of spans to http:\/\/127\.0\.0\.1:\d+ failed: connection refused \(nothing listens there\); nothing local was changed Code: CORDON_EXPORT_ERROR/);
    const slow = await receiver('slow');
    r = await runCordon(['export', '--otlp', slow.url, '--timeout', '1'], { env: sandbox.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.replace(/\s+/g, " ")).toMatch(/OTLP export of spans to http:\/\/127\.0\.0\.1:\d+ failed: no answer within 1000 ms; nothing local was changed/);
    expect(slow.got.length).toBeGreaterThan(0);
    expect(count()).toBe('1/2/4');
    // Found by a fresh user: the URL was echoed re-serialised (`"ftp://x/"`), not as typed.
    const ftp = await runCordon(['export', '--otlp', 'ftp://x'], { env: sandbox.env });
    expect(ftp.exitCode).toBe(2);
    expect(ftp.stderr).toContain('--otlp "ftp://x": expected an http:// or https:// URL');
    const secret = await runCordon(['export', '--otlp', 'ftp://me:hunter22@x?token=abc123'], { env: sandbox.env });
    expect(secret.stderr).toContain('--otlp "ftp://***@x?token=***": expected an http:// or https:// URL');
    expect(secret.stderr).not.toMatch(/hunter22|abc123/);
    // Found by a fresh user: only `failed: bad port`, naming neither the port nor why.
    const bad = await runCordon(['export', '--otlp', 'http://127.0.0.1:9'], { env: sandbox.env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.replace(/\s+/g, ' ')).toContain('OTLP export of spans to http://127.0.0.1:9 failed: port 9 is one fetch refuses to connect to (a "bad port", kept for other protocols by the Fetch standard)');
  });

  it('partialSuccess: rejected counts are reported; a collector that accepts nothing fails the export (exit 2)', async () => {
    recordSession();
    // Rejects every span and point (int64 counts as JSON strings, as the OTLP JSON encoding allows).
    const none = await receiver((path) => ({ status: 200, body: { partialSuccess: path.endsWith('/traces') ? { rejectedSpans: '3', errorMessage: 'span quota exceeded' } : { rejectedDataPoints: 12, errorMessage: 'metrics disabled' } } }));
    let r = await runCordon(['export', '--otlp', none.url], { env: sandbox.env });
    expect(r.exitCode, r.stdout).toBe(2);
    expect(r.stdout).not.toContain('exported');
    expect(r.stderr.replace(/\s+/g, ' ')).toContain('the collector accepted nothing (rejected 3 of 3 spans and 12 of 12 metric points: span quota exceeded; metrics disabled)');
    // Rejects some: exit 0, the counts in the text and in --json.
    const some = await receiver((path) => ({ status: 200, body: path.endsWith('/traces') ? { partialSuccess: { rejectedSpans: 1, errorMessage: 'attribute too long' } } : {} }));
    r = await runCordon(['export', '--otlp', some.url], { env: sandbox.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('3 spans, 12 metric points');
    expect(r.stdout).toContain('the collector rejected 1 spans and 0 metric points: attribute too long');
    r = await runCordon(['export', '--otlp', some.url, '--json'], { env: sandbox.env });
    expect(JSON.parse(r.stdout)).toMatchObject({ spans: 3, data_points: 12, rejected_spans: 1, rejected_data_points: 0, rejection_messages: ['attribute too long'] });
    // A receiver's message is its own text: escaped in the summary (--json) as on the terminal, one line each.
    const hostile = 'quota\x1b]52;c;ZXZpbA==\x07 \u009b2J\u202eexe\nnext';
    const loud = await receiver((path) => ({ status: 200, body: path.endsWith('/traces') ? { partialSuccess: { rejectedSpans: 1, errorMessage: hostile } } : {} }));
    for (const json of [false, true]) {
      r = await runCordon(['export', '--otlp', loud.url, ...(json ? ['--json'] : [])], { env: sandbox.env });
      expect(r.exitCode, r.stderr).toBe(0);
      const shown = 'quota\\u001b]52;c;ZXZpbA==\\u0007 \\u009b2J\\u202eexe\\u000anext';
      if (json) expect(JSON.parse(r.stdout).rejection_messages).toEqual([shown]);
      else expect(r.stdout).toContain(`rejected 1 spans and 0 metric points: ${shown}`);
      expect(r.stdout).not.toMatch(/[\x1b\x07\u009b\u202e]/);
    }
    // An empty partialSuccess (all accepted, per the specification) and a non-OTLP 2xx body are success.
    const empty = await receiver(() => ({ status: 200, body: { partialSuccess: {} } }));
    r = await runCordon(['export', '--otlp', empty.url, '--json'], { env: sandbox.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rejected_spans: 0, rejected_data_points: 0 });
  });

  it('credentials in --otlp are never printed (success, refusal, unreachable) and go as Basic authentication', async () => {
    recordSession();
    const ok = await receiver();
    const withCreds = ok.url.replace('http://', 'http://alice:S3cretPW@');
    let r = await runCordon(['export', '--otlp', withCreds], { env: sandbox.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain('S3cretPW');
    expect(r.stdout).toContain('to http://***@127.0.0.1');
    expect(ok.auth[0]).toBe(`Basic ${Buffer.from('alice:S3cretPW').toString('base64')}`);
    const refusing = await receiver(() => ({ status: 401, body: 'bad password S3cretPW for alice' }));
    r = await runCordon(['export', '--otlp', refusing.url.replace('http://', 'http://alice:S3cretPW@')], { env: sandbox.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('HTTP 401');
    expect(r.stdout + r.stderr).not.toContain('S3cretPW');
    const down = await receiver();
    await new Promise((done) => servers.pop()!.close(done));
    r = await runCordon(['export', '--otlp', `${down.url.replace('http://', 'http://bob:hunter2pw@')}/?token=T0kenValue`], { env: sandbox.env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout + r.stderr).not.toMatch(/hunter2pw|T0kenValue/);
    r = await runCordon(['export', '--otlp', down.url.replace('http://', 'http://carol:Pa55word@')], { env: sandbox.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.replace(/\s+/g, ' ')).toMatch(/to http:\/\/\*\*\*@127\.0\.0\.1:\d+ failed/);
    expect(r.stdout + r.stderr).not.toContain('Pa55word');
  });

  it("a refusing receiver's HTML error page: the status and one short line of it, tags stripped, controls escaped; no credential of the endpoint", async () => {
    recordSession();
    const page = [
      '<!DOCTYPE html>',
      '<html><head><title>gateway</title><style>body { color: red }</style><script>var token = "x";</script></head>',
      `<body><!-- upstream S3cretPW --><h1>Upstream \u001b]52;c;eA==\u0007 said &lt;no&gt; ${'very '.repeat(80)}long</h1>`,
      ...Array.from({ length: 400 }, (_, i) => `<p>line ${i} of the page</p>`),
      '</body></html>',
    ].join('\n');
    const html = await receiver(() => ({ status: 502, body: page }));
    const token = html.url.replace('http://', 'http://TOKENabcdef123@');
    const r = await runCordon(['export', '--otlp', token], { env: sandbox.env });
    expect(r.exitCode).toBe(2);
    const [line] = r.stderr.split('\n').filter((l) => l.includes('OTLP export'));
    // The page's first line with text (the title), then nothing more of it.
    expect(line).toMatch(/OTLP export of spans to http:\/\/\*\*\*@127\.0\.0\.1:\d+ failed: HTTP 502 Bad Gateway: gateway; nothing local was changed$/);
    expect(r.stderr).not.toMatch(/<|DOCTYPE|color: red|var token|line 1 of|TOKENabcdef123|S3cretPW/);
    // Where the first line is long and holds controls: cut, escaped, one line.
    const long = await receiver(() => ({ status: 503, body: page.replace('<title>gateway</title>', '') }));
    const again = await runCordon(['export', '--otlp', long.url, '--json'], { env: sandbox.env });
    const message = JSON.parse(again.stdout).error.message as string;
    const shown = /HTTP 503 Service Unavailable: (.*); nothing local was changed$/.exec(message)![1]!;
    expect(shown.startsWith('Upstream \\u001b]52;c;eA==\\u0007 said <no> very very')).toBe(true);
    expect(shown.length).toBeLessThanOrEqual(200);
    expect(shown.endsWith('…')).toBe(true);
    expect(message).not.toMatch(/[\u0000-\u001f]/);
    // A JSON refusal keeps its one line; an empty body gives the status alone.
    const json = await receiver(() => ({ status: 400, body: { code: 3, message: 'bad span' } }));
    expect((await runCordon(['export', '--otlp', json.url], { env: sandbox.env })).stderr.replace(/\s+/g, ' ')).toContain('failed: HTTP 400 Bad Request: {"code":3,"message":"bad span"}; nothing');
    const empty = await receiver(() => ({ status: 500, body: '' }));
    expect((await runCordon(['export', '--otlp', empty.url], { env: sandbox.env })).stderr.replace(/\s+/g, ' ')).toContain('failed: HTTP 500 Internal Server Error; nothing');
    // A query is refused before anything is sent, without showing its value.
    const query = await runCordon(['export', '--otlp', `${json.url}/?api=Qu3ryT0ken`], { env: sandbox.env });
    expect(query.exitCode).toBe(2);
    expect(query.stderr).toContain('?api=***');
    expect(query.stderr).not.toContain('Qu3ryT0ken');
  });

  // Found by a hostile-input probe: the whole body was read before the status was looked at, so a
  // refusal streaming without end held the export to --timeout (and its bytes in memory) and then
  // lost its one line; a 2xx answer likewise. Now at most 64 KiB of a refusal and 1 MiB of an answer.
  it('a receiver whose body never ends: a refusal is told at once with its first line, an answer is not waited for', async () => {
    recordSession();
    let sent = 0;
    const endless = (status: number) => {
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(status, { 'content-type': 'text/plain' });
          res.write(`quota exceeded for tenant\n`);
          const chunk = Buffer.alloc(64 * 1024, 'x');
          const pump = () => {
            while (!res.destroyed && res.write(chunk)) sent += chunk.length;
            if (!res.destroyed) res.once('drain', pump);
          };
          pump();
        });
      });
      server.on('connection', (socket) => server.once('close', () => socket.destroy()));
      servers.push(server);
      return new Promise<string>((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));
    };
    // --timeout is an hour: an export that waited for the body's end would be killed at the run's
    // bound (exit null), with no clock read that a loaded machine could stretch past a limit.
    let r = await runCordon(['export', '--otlp', await endless(429), '--timeout', '3600'], { env: sandbox.env, timeoutMs: HANG_BOUND_MS });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr.replace(/\s+/g, ' ')).toMatch(/failed: HTTP 429 Too Many Requests: quota exceeded for tenant; nothing local was changed/);
    r = await runCordon(['export', '--otlp', await endless(200), '--timeout', '3600', '--json'], { env: sandbox.env, timeoutMs: HANG_BOUND_MS });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ spans: 3, data_points: 12, rejected_spans: 0 });
    // Each request stopped reading early (the sockets' buffers hold a few MiB at most).
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  }, 150_000);

  it('--since that matches no session says so on stderr and still exits 0 (a periodic export of a quiet period)', async () => {
    recordSession();
    const rx = await receiver();
    for (const json of [[], ['--json']]) {
      const r = await runCordon(['export', '--otlp', rx.url, '--since', '2030-01-01', ...json], { env: sandbox.env });
      expect([r.exitCode, r.stderr]).toEqual([0, 'cordon export: no recorded session matches --since 2030-01-01\n']);
    }
    expect(rx.got).toEqual([]);
    // A --since that matches one prints no note.
    const some = await runCordon(['export', '--otlp', rx.url, '--since', new Date(T - 1000).toISOString()], { env: sandbox.env });
    expect([some.exitCode, some.stderr, some.stdout]).toEqual([0, '', expect.stringContaining('exported 1 session(s)')]);
  });

  it('--all sends every stored session; without it, only the most recent one', async () => {
    recordSession();
    marker(sandbox.dataDir, 'sess-later', 'session_start', T + 10_000);
    call(sandbox.dataDir, 'sess-later', 'k9', T + 11_000, T + 12_000, { command: 'ls', tool_name: 'Bash', tool: 'shell' });
    marker(sandbox.dataDir, 'sess-later', 'session_end', T + 13_000);
    const rx = await receiver();
    const latest = await runCordon(['export', '--otlp', rx.url], { env: sandbox.env });
    expect(latest.exitCode, latest.stderr).toBe(0);
    expect(latest.stdout).toContain('exported 1 session(s): 2 spans');
    const all = await runCordon(['export', '--otlp', rx.url, '--all'], { env: sandbox.env });
    expect(all.exitCode, all.stderr).toBe(0);
    expect(all.stdout).toContain('exported 2 session(s): 5 spans');
  });

  it('a malformed --otlp URL is refused with exit 2 before anything is sent', async () => {
    recordSession();
    for (const [url, why] of [
      ['http://', 'names no host'],
      ['garbage', 'expected an http:// or https:// URL'],
      ['http:///v1', 'names no host'],
      ['http://[::1', 'not a valid URL'],
      ['http://host:4318/?x=1', 'takes no query or fragment'],
      ['http://u:Secret99@', 'not a valid URL'],
      // Was a bare `URI malformed` once the export had started.
      ['http://a%zz:Secret99@host:4318', 'its user name holds a % that starts no escape (write a literal % as %25)'],
      ['http://user:Secret99%@host:4318', 'its password holds a % that starts no escape'],
    ]) {
      const r = await runCordon(['export', '--otlp', url!], { env: sandbox.env });
      expect(r.exitCode, url).toBe(2);
      expect(r.stderr.replace(/\s+/g, ' '), url).toContain(why!);
      expect(r.stderr).not.toMatch(/Could not parse|Secret99/);
    }
  });
});
