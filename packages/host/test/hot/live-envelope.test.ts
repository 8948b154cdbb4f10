import { readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '@cordon/plugin-api';
import type { CordonHost } from '../../src/bus/host.js';
import { handleHookPayload } from '../../src/hot/handle.js';
import { armWith, repo } from '../envelope/support.js';
import { linkPluginRoots, makeSandbox } from '../../../../test/support/cli.js';
import { AGENT_PLUGINS, hookViaSocket, hostWithDialects, PATIENT_HOOK_ENV, policyPlugin, tapPlugin, tempDir } from './support.js';

// The live envelope in the hook, for each of the five dialects: a write outside the armed policy
// is denied in the agent's own format, a write inside it and every other call are left alone,
// and a call that writes no file reads nothing (a damaged .cordon/config.json stays unread).

let tmp: ReturnType<typeof tempDir>;
let host: CordonHost;
let root: string;
beforeEach(async () => {
  tmp = tempDir('cordon-live-hook-');
  host = await hostWithDialects(tmp.dir, [policyPlugin('never-matches-anything', { kind: 'deny', reason: 'x' })]);
  root = realpathSync(repo({ 'src/app.py': 'print(1)\n', 'README.md': '# r\n' }));
  await armWith(root, { allow: ['src/**'], live: true });
});
afterEach(() => tmp.cleanup());

const patch = (path: string) => `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch\n`;

/** A file-writing call of each agent (the agent hook docs; docs/references.md) writing `path` (relative to the repository). */
const WRITES: Record<string, (path: string) => Record<string, unknown>> = {
  'claude-code': (path) => ({ session_id: 's-claude', hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Write', tool_input: { file_path: join(root, path), content: 'x' }, tool_use_id: 'toolu_1' }),
  codex: (path) => ({ session_id: 's-codex', turn_id: 't', model: 'gpt-5.5', hook_event_name: 'PreToolUse', cwd: root, tool_name: 'apply_patch', tool_input: { command: patch(path) }, tool_use_id: 'call_1' }),
  gemini: (path) => ({ session_id: 's-gemini', hook_event_name: 'BeforeTool', cwd: root, timestamp: '2026-12-01T00:00:00Z', tool_name: 'replace', tool_input: { file_path: join(root, path), old_string: 'a', new_string: 'b' } }),
  cursor: (path) => ({ conversation_id: 's-cursor', generation_id: 'g', hook_event_name: 'preToolUse', cwd: root, workspace_roots: [root], tool_name: 'Write', tool_input: { file_path: join(root, path) }, tool_use_id: 'call_c' }),
  hermes: (path) => ({ hook_event_name: 'pre_tool_call', session_id: 's-hermes', cwd: root, tool_name: 'write_file', tool_input: { path: join(root, path), content: 'x' }, extra: { tool_call_id: 'h1' } }),
};

/** The reason in each agent's deny format. */
const REASON_OF: Record<string, (out: any) => string> = {
  'claude-code': (o) => (o.hookSpecificOutput.permissionDecision === 'deny' ? o.hookSpecificOutput.permissionDecisionReason : ''),
  codex: (o) => (o.hookSpecificOutput.permissionDecision === 'deny' ? o.hookSpecificOutput.permissionDecisionReason : ''),
  gemini: (o) => (o.decision === 'deny' ? o.reason : ''),
  cursor: (o) => (o.permission === 'deny' ? o.agent_message : ''),
  hermes: (o) => (o.decision === 'block' ? o.reason : ''),
};

function collectingLog(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return { errors, debug() {}, info() {}, warn() {}, error: (message) => errors.push(message) };
}

describe.each(Object.keys(WRITES))('the live envelope answers %s', (agent) => {
  it('denies a write outside the policy in the agent\'s own format, with the rule and the allowed globs', async () => {
    const outcome = await handleHookPayload(WRITES[agent]!('README.md'), { host, agent, env: {} });
    expect(outcome.exitCode).toBe(0);
    expect(outcome.decision).toMatchObject({ kind: 'deny', by: 'cordon:live-envelope' });
    const reason = REASON_OF[agent]!(JSON.parse(outcome.stdout));
    expect(reason).toContain("cordon's live envelope refused this write");
    expect(reason).toContain('path outside policy: README.md (matches no allow glob)');
    expect(reason).toContain('matching src/** (--allow)');
    expect(outcome.marker).toMatchObject({ event: 'tool_denied', decision: 'deny', decided_by: 'cordon:live-envelope' });
  });

  // The model writes the tool input: a field nested past V8's stack (a recursive key sort and
  // JSON.stringify end near 5,000 levels) once made the Gemini call fail before its decision,
  // and a shell call's marker be dropped. JSON.parse itself takes 200,000 levels.
  it('denies a write outside the policy whose input also holds a field nested 200,000 levels deep, and records it', async () => {
    const depth = 200_000;
    const payload = WRITES[agent]!('README.md');
    const input = JSON.parse(`{"pad":${'['.repeat(depth)}1${']'.repeat(depth)}}`) as Record<string, unknown>;
    payload.tool_input = { ...(payload.tool_input as Record<string, unknown>), pad: input.pad };
    const log = collectingLog();
    const outcome = await handleHookPayload(payload, { host, agent, env: {}, log });
    expect(log.errors).toEqual([]);
    expect(outcome.decision).toMatchObject({ kind: 'deny', by: 'cordon:live-envelope' });
    expect(REASON_OF[agent]!(JSON.parse(outcome.stdout))).toContain('path outside policy: README.md');
    expect(outcome.marker).toMatchObject({ event: 'tool_denied' });
  });

  it('lets a write inside the policy run undecided', async () => {
    const outcome = await handleHookPayload(WRITES[agent]!('src/new.py'), { host, agent, env: {} });
    expect(outcome.stdout).toBe('');
    expect(outcome.decision).toBeUndefined();
    expect(outcome.marker?.event).toBe('tool_start');
  });
});

describe('the live envelope costs a call that writes no file nothing', () => {
  it('reads no envelope for a shell call (a damaged config stays unread), and logs the damage for a write (which then proceeds)', async () => {
    writeFileSync(join(root, '.cordon/config.json'), '{ not json');
    const shell = collectingLog();
    const bash = await handleHookPayload({ session_id: 's', hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Bash', tool_input: { command: 'echo > README.md' }, tool_use_id: 'b1' }, { host, agent: 'claude-code', env: {}, log: shell });
    expect(bash.stdout).toBe('');
    expect(shell.errors).toEqual([]);
    const write = collectingLog();
    const written = await handleHookPayload(WRITES['claude-code']!('README.md'), { host, agent: 'claude-code', env: {}, log: write });
    expect(written.stdout).toBe('');
    expect(write.errors).toEqual(['live envelope could not judge a write; the call proceeds']);
  });

  it('does nothing in a repository armed without --live, or outside any repository', async () => {
    const plain = realpathSync(repo());
    await armWith(plain, { allow: ['src/**'] });
    const outcome = await handleHookPayload({ ...WRITES['claude-code']!('README.md'), cwd: plain, tool_input: { file_path: join(plain, 'README.md') } }, { host, agent: 'claude-code', env: {} });
    expect(outcome.stdout).toBe('');
    const nowhere = await handleHookPayload({ ...WRITES['claude-code']!('README.md'), cwd: tmp.dir, tool_input: { file_path: join(tmp.dir, 'x') } }, { host, agent: 'claude-code', env: {} });
    expect(nowhere.stdout).toBe('');
  });
});

describe('the built hook process', () => {
  it('denies on the main thread, loading picomatch from its own bundle through the code cache, and on the plugin thread alike', async () => {
    const sandbox = makeSandbox('cordon-live-process-');
    try {
      linkPluginRoots(sandbox.dataDir, AGENT_PLUGINS);
      const env = { ...sandbox.env, ...PATIENT_HOOK_ENV };
      const payload = JSON.stringify(WRITES['claude-code']!('README.md'));
      // The first call after the plugin set changed loads the plugins on the bus thread (no plugin
      // index yet: hot/main.ts); a call that writes nothing, so no glob is compiled and stored there.
      const first = await hookViaSocket(['--agent', 'claude-code'], JSON.stringify({ session_id: 'warm', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'w1', cwd: sandbox.root }), false, env);
      expect({ exitCode: first.exitCode, stdout: first.stdout }).toEqual({ exitCode: 0, stdout: '' });
      const main = await hookViaSocket(['--agent', 'claude-code'], payload, false, env);
      expect(main.exitCode).toBe(0);
      expect(JSON.parse(main.stdout).hookSpecificOutput.permissionDecisionReason).toContain('path outside policy: README.md (matches no allow glob)');
      expect(readdirSync(join(sandbox.cacheDir, 'code-cache')).some((f) => f.startsWith('picomatch.cjs-'))).toBe(true);
      // A plugin tapping a tool hook moves the work onto the bus thread (hot/bus-thread.ts).
      linkPluginRoots(sandbox.dataDir, [...AGENT_PLUGINS, tapPlugin(sandbox.dir('plugin-after'), 'after-tap', 'async (r) => r', 'afterToolCall')]);
      const threaded = await hookViaSocket(['--agent', 'claude-code'], payload, false, env);
      expect(threaded.exitCode).toBe(0);
      expect(JSON.parse(threaded.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
      const allowed = await hookViaSocket(['--agent', 'claude-code'], JSON.stringify(WRITES['claude-code']!('src/ok.py')), false, env);
      expect(allowed.stdout).toBe('');
    } finally {
      sandbox.cleanup();
    }
  }, 120_000);
});
