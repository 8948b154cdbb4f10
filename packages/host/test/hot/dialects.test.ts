import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dialect, ProcessInfo, ToolCall } from '@cordon/plugin-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findAgentPid, isShell, readProc } from '../../src/hot/agent-pid.js';
import { dialectContext, payloadReaders } from '../../src/hot/dialect-context.js';
import { dialect as claude } from '../../../../plugins/claude-code/src/dialect/index.js';
import { dialect as codex } from '../../../../plugins/codex/src/dialect/index.js';
import { exitCodeFromRollout } from '../../../../plugins/codex/src/dialect/rollout.js';
import { dialect as gemini } from '../../../../plugins/gemini/src/dialect/index.js';
import { FIXTURES, REPO, tempDir } from './support.js';

const call = (agent: string, toolName: string): ToolCall => ({ agent, sessionId: 's', callKey: 'k', callKeySource: 'agent', toolName, canonicalTool: 'shell', toolInput: { command: 'ls' }, command: 'ls', nativeEvent: 'PreToolUse', raw: {} });

describe('decisions in each agent\'s own format (the agent hook docs; docs/references.md, canonical names)', () => {
  it('Claude Code and Codex: hookSpecificOutput.permissionDecision / updatedInput', () => {
    for (const d of [claude, codex]) {
      expect(d.reply({ kind: 'deny', reason: 'no' }, call(d.name, 'Bash'))).toEqual({ stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' } }), exitCode: 0 });
    }
    // Claude applies updatedInput within its own permission flow; Codex takes it only with "allow".
    expect(JSON.parse(claude.reply({ kind: 'rewrite', toolInput: { command: 'nice ls' } }, call('claude-code', 'Bash')).stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'nice ls' } } });
    expect(JSON.parse(codex.reply({ kind: 'rewrite', toolInput: { command: 'nice ls' } }, call('codex', 'Bash')).stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'nice ls' } } });
  });

  it('Gemini CLI: decision / hookSpecificOutput.tool_input', () => {
    expect(JSON.parse(gemini.reply({ kind: 'deny', reason: 'no' }, call('gemini', 'run_shell_command')).stdout)).toEqual({ decision: 'deny', reason: 'no' });
    expect(JSON.parse(gemini.reply({ kind: 'rewrite', toolInput: { command: 'nice ls' } }, call('gemini', 'run_shell_command')).stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: { command: 'nice ls' } } });
  });
});

describe('canonical tools', () => {
  it('maps each agent\'s names (the agent hook docs; docs/references.md, canonical names)', () => {
    expect(['Bash', 'Read', 'Write', 'Edit', 'Grep', 'WebFetch', 'Agent', 'mcp__github__search', 'TodoWrite'].map((t) => claude.canonicalTool(t, {}))).toEqual(['shell', 'read', 'write', 'edit', 'search', 'web', 'subagent', 'mcp', 'other']);
    expect(['run_shell_command', 'read_file', 'write_file', 'replace', 'grep_search', 'google_web_search', 'mcp_github_search'].map((t) => gemini.canonicalTool(t, {}))).toEqual(['shell', 'read', 'write', 'edit', 'search', 'web', 'mcp']);
    expect(codex.canonicalTool('Bash', {})).toBe('shell');
    expect(codex.canonicalTool('apply_patch', { command: '*** Begin Patch\n*** Add File: /a\n+x\n*** End Patch\n' })).toBe('write');
    expect(codex.canonicalTool('apply_patch', { command: '*** Begin Patch\n*** Add File: /a\n+x\n*** Update File: /b\n@@\n-y\n+z\n*** End Patch\n' })).toBe('edit');
  });
});

describe('Codex exit codes from the rollout transcript', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir('cordon-rollout-');
  });
  afterEach(() => tmp.cleanup());

  it('finds the item_completed of the call (as codex-cli 0.171.0 writes it) and only that one', () => {
    const path = join(tmp.dir, 'rollout.jsonl');
    const item = (id: string, code: number | null) => JSON.stringify({ timestamp: '2026-11-30T02:47:46.838Z', type: 'event_msg', payload: { type: 'item_completed', item: { type: 'CommandExecution', id, status: code ? 'failed' : 'completed', exit_code: code } } });
    writeFileSync(path, [JSON.stringify({ type: 'session_meta' }), item('call_a', 0), 'not json', item('call_b', 2), item('call_c', null), ''].join('\n'));
    expect(exitCodeFromRollout(payloadReaders.fileTail, path, 'call_a')).toBe(0);
    expect(exitCodeFromRollout(payloadReaders.fileTail, path, 'call_b')).toBe(2);
    expect(exitCodeFromRollout(payloadReaders.fileTail, path, 'call_c')).toBeUndefined();
    expect(exitCodeFromRollout(payloadReaders.fileTail, path, 'call_zz')).toBeUndefined();
    expect(exitCodeFromRollout(payloadReaders.fileTail, join(tmp.dir, 'missing.jsonl'), 'call_a')).toBeUndefined();
  });

  it('turns it into the status of a PostToolUse for a shell call', async () => {
    const path = join(tmp.dir, 'rollout.jsonl');
    writeFileSync(path, JSON.stringify({ type: 'event_msg', payload: { type: 'item_completed', item: { id: 'call_fake_3_8', exit_code: 2 } } }) + '\n');
    const payload = JSON.parse(readFileSync(join(FIXTURES, 'codex.PostToolUse.Bash-failing-command.json'), 'utf8'));
    expect(await codex.parse({ ...payload, transcript_path: path }, dialectContext({}))).toMatchObject({ kind: 'tool.after', status: 'failed', exitCode: 2 });
  });
});

describe('agent processes', () => {
  const context = JSON.parse(readFileSync(join(FIXTURES, '_process-context.json'), 'utf8'));
  const proc = (p: { pid: number; ppid: number; comm: string; exe?: string; cmdline: string }): ProcessInfo => ({ pid: p.pid, ppid: p.ppid, comm: p.comm, exe: p.exe, argv: p.cmdline.split(' ') });

  it.each([
    ['claude-code', claude],
    ['codex', codex],
    ['gemini-cli', gemini],
  ] as Array<[string, Dialect]>)('%s: the walk over the captured ancestry stops at the agent (the agent hook docs; docs/references.md, finding the agent pid)', (name, dialect) => {
    const chain: ProcessInfo[] = context[name].ancestry_until_agent.map(proc);
    const agent = chain.find((p) => !isShell(p) && dialect.isAgentProcess(p));
    // Claude: past the dash shell to the native claude; Codex: the native binary, not the node launcher; Gemini: the worker.
    expect(agent?.pid).toBe({ 'claude-code': 10266, codex: 31153, 'gemini-cli': 6722 }[name]);
  });

  it('takes CLAUDE_PID when it is set', () => {
    expect(findAgentPid(claude, { CLAUDE_PID: '4242' })).toBe(4242);
    expect(findAgentPid(claude, { CLAUDE_PID: 'junk' }, 1)).toBeUndefined();
  });

  it('walks the real /proc ancestry past a shell to the first process the dialect recognises', async () => {
    const hook = join(REPO, 'packages/host/dist/hot/agent-pid.js');
    const script = `import(${JSON.stringify(hook)}).then(({ findAgentPid }) => console.log(findAgentPid({ isAgentProcess: (p) => p.argv.includes('fake-agent-marker') }, {})))`;
    // fake agent (node … fake-agent-marker) → /bin/sh -c → node (the "hook")
    const agent = spawn(process.execPath, ['-e', `require('child_process').spawn('/bin/sh', ['-c', ${JSON.stringify(`${process.execPath} -e "${script.replace(/"/g, '\\"')}"; true`)}], { stdio: 'inherit' }).on('exit', () => {})`, 'fake-agent-marker'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const out: Buffer[] = [];
    agent.stdout.on('data', (b: Buffer) => out.push(b));
    await new Promise((r) => agent.on('close', r));
    expect(Number(Buffer.concat(out).toString().trim())).toBe(agent.pid);
    expect(readProc(process.pid)?.ppid).toBe(process.ppid);
  });
});
