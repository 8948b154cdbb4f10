import type { CanonicalTool, Dialect, HookReply, NativeEvent, PayloadReaders, ProcessInfo, ToolCall, ToolDecision } from '@cordon/plugin-api';

// The Acme agent (invented for this example) runs one hook command per event and sends one JSON
// object on stdin:
//   {"acme_event":"before_tool","session":"s1","call_id":"c1","tool":"shell","args":{"command":"ls"},"cwd":"/w"}
//   {"acme_event":"after_tool", …same…, "ok":false,"exit_code":2,"error":"…"}
//   {"acme_event":"session_start"|"session_end","session":"s1"}
// It reads a decision from stdout: {"allow":false,"reason":"…"} or {"allow":true,"args":{…}}.

/** Acme tool names and their canonical families. */
const TOOLS: Readonly<Record<string, CanonicalTool>> = { shell: 'shell', read_file: 'read', write_file: 'write', grep: 'search' };

/** Turns one Acme payload into a canonical event; `undefined` for events cordon does not record. */
export function parseAcme(p: Readonly<Record<string, unknown>>, read: PayloadReaders): NativeEvent | undefined {
  const event = read.str(p, 'acme_event');
  const sessionId = read.str(p, 'session') ?? '';
  const cwd = read.str(p, 'cwd');
  const base = { nativeEvent: event ?? '', sessionId, ...(cwd !== undefined ? { cwd } : {}) };
  if (event === 'session_start') return { ...base, kind: 'session.start' };
  if (event === 'session_end') return { ...base, kind: 'session.end' };
  if (event !== 'before_tool' && event !== 'after_tool') return undefined;
  const callId = read.str(p, 'call_id');
  const tool = { ...base, toolName: read.str(p, 'tool') ?? '', toolInput: read.obj(p, 'args') ?? {}, ...(callId !== undefined ? { callId } : {}) };
  if (event === 'before_tool') return { ...tool, kind: 'tool.before' };
  const ok = p.ok;
  const exitCode = read.num(p, 'exit_code');
  const error = read.str(p, 'error');
  // Acme says `ok` for every tool; without it the outcome cannot be told.
  const status = ok === true ? 'ok' : ok === false ? 'failed' : 'unknown';
  return { ...tool, kind: 'tool.after', status, ...(exitCode !== undefined ? { exitCode } : {}), ...(error !== undefined ? { error } : {}) };
}

/** Writes a `beforeToolCall` decision the way Acme reads it. */
export function replyAcme(decision: ToolDecision, _call: ToolCall): HookReply {
  const out = decision.kind === 'deny' ? { allow: false, reason: decision.reason } : { allow: true, args: decision.toolInput };
  return { stdout: JSON.stringify(out), exitCode: 0 };
}

/** The agent process: an executable called `acme-agent`. */
export function isAcmeProcess(proc: ProcessInfo): boolean {
  const base = (s: string | undefined) => (s ? s.slice(s.lastIndexOf('/') + 1) : '');
  return proc.comm === 'acme-agent' || base(proc.exe) === 'acme-agent' || base(proc.argv[0]) === 'acme-agent' || base(proc.argv[1]) === 'acme-agent';
}

/** The Acme dialect. */
export const dialect: Dialect = {
  name: 'acme',
  parse: (payload, ctx) => parseAcme(payload, ctx.read),
  canonicalTool: (name) => TOOLS[name] ?? 'other',
  reply: replyAcme,
  isAgentProcess: isAcmeProcess,
};
