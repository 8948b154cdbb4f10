import { spawn } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPluginRoots, makeSandbox, type RunResult, type Sandbox } from '../../../../test/support/cli.js';
import { STDIN_DEFAULTS } from '../../src/hot/stdin.js';
import { readMarkers } from '../../src/telemetry/markers.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';
import { armWith, repo } from '../envelope/support.js';
import { AGENT_PLUGINS, collect as collectRun, hookLog, PATIENT_HOOK_ENV } from './support.js';

// Payloads over the hook's 64 MiB limit (a Claude Code `Write` of 70 MB, a Codex patch adding a
// huge file) fed to the real `cordon hook` process through a pipe (Codex, Hermes) and a socket
// (Node-based agents) with a live envelope armed in a real git repository: the call is judged
// from the payload's reduced form, in bounded memory, and recorded; anything else stays silent.

const LIMIT = STDIN_DEFAULTS.maxBytes;
let sandbox: Sandbox;
let root: string;

beforeEach(async () => {
  sandbox = makeSandbox('cordon-hook-oversized-');
  sandbox.env.CORDON_SAMPLER = 'off';
  Object.assign(sandbox.env, PATIENT_HOOK_ENV);
  linkPluginRoots(sandbox.dataDir, AGENT_PLUGINS);
  root = realpathSync(repo({ 'src/app.py': 'print(1)\n', 'README.md': '# r\n' }));
  await armWith(root, { allow: ['src/**'], live: true });
});
afterEach(() => sandbox.cleanup());

/**
 * A payload streamed by its own process: `head`, then `line` repeated until the whole is over
 * `bytes`, then `tail` (each already JSON text). Written to a file as the spec the writer reads.
 */
function writer(head: string, line: string, tail: string, bytes: number): string {
  const spec = join(sandbox.dir('payload'), `spec-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(spec, JSON.stringify({ head, line, tail, bytes }));
  const script = join(sandbox.dir('payload'), 'writer.cjs');
  writeFileSync(
    script,
    [
      "const fs = require('node:fs');",
      'const { head, line, tail, bytes } = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));',
      'const block = Buffer.from(line.repeat(Math.ceil((1 << 20) / line.length)));',
      'const put = (b) => { let o = 0; while (o < b.length) { try { o += fs.writeSync(1, b, o); } catch (e) { if (e.code !== "EAGAIN") throw e; } } };',
      'put(Buffer.from(head));',
      'for (let n = head.length; n <= bytes; n += block.length) put(block);',
      'put(Buffer.from(tail));',
    ].join('\n'),
  );
  return `"${process.execPath}" '${script}' '${spec}'`;
}


/** The hook with fd 0 a pipe from the writer (`< <(writer)`), as Codex and Hermes give it. */
function viaPipe(agent: string, command: string, env: NodeJS.ProcessEnv = sandbox.env): Promise<RunResult> {
  const script = `exec "$0" "$1" hook --agent '${agent}' < <(${command})`;
  return collectRun(spawn('/bin/bash', ['-c', script, process.execPath, CORDON_BIN], { env, stdio: ['ignore', 'pipe', 'pipe'] }), 120_000);
}

/** The hook with fd 0 a socketpair (Node's `stdio: 'pipe'`), the writer's output piped into it, as Node-based agents give it. */
function viaSocket(agent: string, command: string, env: NodeJS.ProcessEnv = sandbox.env): Promise<RunResult> {
  const hook = spawn(process.execPath, [CORDON_BIN, 'hook', '--agent', agent], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const source = spawn('/bin/bash', ['-c', command], { stdio: ['ignore', 'pipe', 'ignore'] });
  hook.stdin!.on('error', () => undefined);
  source.stdout!.pipe(hook.stdin!);
  return collectRun(hook, 120_000).finally(() => {
    source.kill();
    hook.stdin!.destroy();
  });
}

const DELIVERY = { pipe: viaPipe, socket: viaSocket } as const;

/** A Claude Code `Write` of a file of more than `bytes` bytes to `path` (the field order Claude Code sends, or the path after the content). */
function claudeWrite(path: string, bytes: number, pathLast = false): string {
  const id = `s-claude-${Math.random().toString(36).slice(2)}`;
  const start = JSON.stringify({ session_id: id, transcript_path: '/tmp/t.jsonl', cwd: root, hook_event_name: 'PreToolUse', tool_name: 'Write' }).slice(0, -1);
  const filePath = JSON.stringify(join(root, path));
  const head = pathLast ? `${start},"tool_input":{"content":"` : `${start},"tool_input":{"file_path":${filePath},"content":"`;
  const tail = pathLast ? `"},"file_path_note":1,"tool_use_id":"toolu_big"}`.replace('},"file_path_note":1', `,"file_path":${filePath}}`) : `"},"tool_use_id":"toolu_big"}`;
  return writer(head, JSON.stringify('const line = "a line of generated code";\n').slice(1, -1), tail, bytes);
}

/** A Codex `apply_patch` adding a file of more than `bytes` bytes at `path` (relative to the repository). */
function codexPatch(path: string, bytes: number): string {
  const head = `${JSON.stringify({ session_id: 's-codex-big', turn_id: 't', hook_event_name: 'PreToolUse', cwd: root, tool_name: 'apply_patch', tool_use_id: 'call_big', model: 'gpt-5.5' }).slice(0, -1)},"tool_input":{"command":"*** Begin Patch\\n*** Add File: ${path}\\n`;
  return writer(head, '+a line of the new file\\n', '*** End Patch\\n"}}', bytes);
}

const markersOf = (session: string) => readMarkers(join(sessionDir(sandbox.dataDir, session), 'markers.jsonl')).markers;
const sessionOf = (command: string): string => JSON.parse(JSON.parse(readFileSync(command.split("'")[3]!, 'utf8')).head.replace(/,"tool_input".*$/, '}')).session_id;

describe.each(['pipe', 'socket'] as const)('cordon hook: a payload over 64 MiB through a %s, live envelope armed', (delivery) => {
  const run = DELIVERY[delivery];

  it('Claude Code Write outside the policy: denied in Claude Code\'s format, recorded with payload_bytes', async () => {
    const command = claudeWrite('README.md', LIMIT + 4 * 1024 * 1024);
    const r = await run('claude-code', command);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(out.hookSpecificOutput.permissionDecisionReason).toContain('path outside policy: README.md');
    const [marker] = markersOf(sessionOf(command));
    expect(marker).toMatchObject({ event: 'tool_denied', tool_name: 'Write', decided_by: 'cordon:live-envelope' });
    expect(marker!.payload_bytes).toBeGreaterThan(LIMIT);
  });

  it('Claude Code Write inside the policy: silent, recorded as a tool_start with payload_bytes', async () => {
    const command = claudeWrite('src/big.py', LIMIT + 4 * 1024 * 1024);
    const r = await run('claude-code', command);
    expect(r).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    const [marker] = markersOf(sessionOf(command));
    expect(marker).toMatchObject({ event: 'tool_start', tool_name: 'Write' });
    expect(marker!.payload_bytes).toBeGreaterThan(LIMIT);
  });
});

describe('cordon hook: other payloads over 64 MiB', () => {
  it('Claude Code Write naming its file after the content: still denied', async () => {
    const r = await viaSocket('claude-code', claudeWrite('README.md', LIMIT + 1024 * 1024, true));
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('Codex apply_patch adding a huge file outside the policy, through a pipe: denied in Codex\'s format', async () => {
    const r = await viaPipe('codex', codexPatch('README.md', LIMIT + 1024 * 1024));
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(out.hookSpecificOutput.permissionDecisionReason).toContain('README.md');
    expect(markersOf('s-codex-big')[0]).toMatchObject({ event: 'tool_denied', tool_name: 'apply_patch' });
  });

  it('Codex apply_patch adding a huge file inside the policy: silent', async () => {
    const r = await viaPipe('codex', codexPatch('src/big.txt', LIMIT + 1024 * 1024));
    expect(r).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    expect(markersOf('s-codex-big')[0]).toMatchObject({ event: 'tool_start', tool_name: 'apply_patch' });
  });

  it.each(['pipe', 'socket'] as const)('not JSON at all, through a %s: silent exit 0, logged', async (delivery) => {
    const r = await DELIVERY[delivery]('claude-code', `head -c ${LIMIT + 1024 * 1024} /dev/zero | tr '\\0' 'x'`);
    expect(r).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    expect(hookLog(sandbox.dataDir).some((l) => l.problem === 'too-large' && String(l.detail).startsWith('not a JSON object'))).toBe(true);
  });

  it('memory stays bounded: a 256 MiB payload peaks well below its size', async () => {
    const probe = join(sandbox.dir('probe'), 'rss.cjs');
    const out = join(sandbox.dir('probe'), 'rss.txt');
    // VmHWM is this process's own peak (getrusage's maxRSS keeps the peak of what ran before the
    // exec, here the test worker's); only the hook writes it, not the payload's writer.
    writeFileSync(
      probe,
      `process.on('exit', () => { if (process.argv.includes('hook')) require('node:fs').writeFileSync(${JSON.stringify(out)}, /VmHWM:\\s*(\\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))[1]); });\n`,
    );
    const r = await viaPipe('claude-code', claudeWrite('README.md', 256 * 1024 * 1024), { ...sandbox.env, NODE_OPTIONS: `--require ${probe}` });
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    const peakBytes = Number(readFileSync(out, 'utf8')) * 1024;
    // What is kept: the 64 MiB read before the limit was crossed, plus Node itself; past the limit
    // the read buffer is reused (stdin.ts `keeps`), where a copy per read let Node 24 peak at
    // 190 MiB (2026-12-04; 116 MiB on Node 20 and 127 MiB on Node 24 since).
    expect(peakBytes).toBeLessThan(160 * 1024 * 1024);
  });
});
