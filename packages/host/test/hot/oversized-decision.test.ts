import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CordonHost } from '../../src/bus/host.js';
import { handleHookPayload } from '../../src/hot/handle.js';
import { PayloadReducer, REDUCE_LIMITS } from '../../src/hot/payload-reduce.js';
import { armWith, repo } from '../envelope/support.js';
import { hostWithDialects, tempDir } from './support.js';

// The live envelope's answer for a payload read in its reduced form (oversized.ts): targets a
// cut cannot hide are judged as usual; a write whose targets a cut may hide is refused where a
// live envelope is armed, and proceeds where none is.

let tmp: ReturnType<typeof tempDir>;
let host: CordonHost;
let armed: string;
let plain: string;
beforeEach(async () => {
  tmp = tempDir('cordon-oversized-');
  host = await hostWithDialects(tmp.dir);
  armed = realpathSync(repo({ 'src/app.py': 'print(1)\n', 'README.md': '# r\n' }));
  await armWith(armed, { allow: ['src/**'], live: true });
  plain = realpathSync(repo({ 'README.md': '# r\n' }));
});
afterEach(() => tmp.cleanup());

/** Reads `payload` as the hook reads one over its size limit. */
function reduced(payload: Record<string, unknown>) {
  const text = Buffer.from(JSON.stringify(payload));
  const reducer = new PayloadReducer();
  for (let i = 0; i < text.length; i += 65_536) reducer.push(text.subarray(i, i + 65_536));
  const { value, cuts, cutEverywhere } = reducer.result();
  return { value: value as Record<string, unknown>, oversized: { cuts, cutEverywhere, bytes: text.length } };
}

/** A Codex patch whose header lines alone are more than a skeleton keeps: the file it names last is lost. */
const manyHeaders = (last: string) => `*** Begin Patch\n${Array.from({ length: 20_000 }, (_, i) => `*** Add File: src/f${i}.txt\n+x\n`).join('')}*** Add File: ${last}\n+x\n*** End Patch\n`;
const codex = (cwd: string, patch: string) => ({ session_id: 's-codex', turn_id: 't', hook_event_name: 'PreToolUse', cwd, tool_name: 'apply_patch', tool_input: { command: patch }, tool_use_id: 'call_1' });

describe('the live envelope on a reduced payload', () => {
  it('a patch whose file list was cut: refused where a live envelope is armed (fail closed), with a reason that says why', async () => {
    const patch = manyHeaders('README.md');
    expect(patch.length).toBeGreaterThan(REDUCE_LIMITS.skeleton);
    const { value, oversized } = reduced(codex(armed, patch));
    expect(oversized.cuts).toEqual([['tool_input', 'command']]);
    const outcome = await handleHookPayload(value, { host, agent: 'codex', env: {}, oversized });
    expect(outcome.decision).toMatchObject({ kind: 'deny', by: 'cordon:live-envelope' });
    const reason = JSON.parse(outcome.stdout).hookSpecificOutput.permissionDecisionReason;
    expect(reason).toContain('the files it writes could not be determined');
    expect(outcome.marker).toMatchObject({ event: 'tool_denied', payload_bytes: oversized.bytes });
  });

  it('the same patch where no live envelope is armed: proceeds undecided, recorded', async () => {
    const { value, oversized } = reduced(codex(plain, manyHeaders('README.md')));
    const outcome = await handleHookPayload(value, { host, agent: 'codex', env: {}, oversized });
    expect(outcome.decision).toBeUndefined();
    expect(outcome.stdout).toBe('');
    expect(outcome.marker).toMatchObject({ event: 'tool_start', tool_name: 'apply_patch', payload_bytes: oversized.bytes });
  });

  it('a Write whose content was cut still names its file: judged as usual (allowed, and refused with the usual reason)', async () => {
    const content = Array.from({ length: 50_000 }, (_, i) => `line ${i}`).join('\n');
    const write = (path: string) => reduced({ session_id: 's', hook_event_name: 'PreToolUse', cwd: armed, tool_name: 'Write', tool_input: { file_path: join(armed, path), content }, tool_use_id: 'toolu_1' });
    const inside = write('src/big.py');
    expect(inside.oversized.cuts).toEqual([['tool_input', 'content']]);
    expect((await handleHookPayload(inside.value, { host, agent: 'claude-code', env: {}, oversized: inside.oversized })).decision).toBeUndefined();
    const outside = write('README.md');
    const denied = await handleHookPayload(outside.value, { host, agent: 'claude-code', env: {}, oversized: outside.oversized });
    expect(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecisionReason).toContain('path outside policy: README.md');
  });

  it('a Claude Code shell call, cut: not a file-writing tool, proceeds', async () => {
    const command = Array.from({ length: 50_000 }, (_, i) => `echo ${i}`).join('\n');
    const { value, oversized } = reduced({ session_id: 's', hook_event_name: 'PreToolUse', cwd: armed, tool_name: 'Bash', tool_input: { command }, tool_use_id: 'toolu_2' });
    expect(oversized.cuts.length).toBe(1);
    const outcome = await handleHookPayload(value, { host, agent: 'claude-code', env: {}, oversized });
    expect(outcome.decision).toBeUndefined();
  });

  it('a Codex shell command over a skeleton\'s bound, cut: refused where armed, whether or not it runs apply_patch (the cut part may)', async () => {
    const echo = Array.from({ length: 50_000 }, (_, i) => `echo ${i}`).join('\n');
    const plainShell = reduced({ ...codex(armed, ''), tool_name: 'Bash', tool_input: { command: echo } });
    expect((await handleHookPayload(plainShell.value, { host, agent: 'codex', env: {}, oversized: plainShell.oversized })).decision).toMatchObject({ kind: 'deny' });
    const unarmed = reduced({ ...codex(plain, ''), tool_name: 'Bash', tool_input: { command: echo } });
    expect((await handleHookPayload(unarmed.value, { host, agent: 'codex', env: {}, oversized: unarmed.oversized })).decision).toBeUndefined();
    const command = `apply_patch <<'EOF'\n${manyHeaders('src/ok.txt')}EOF\n`;
    const { value, oversized } = reduced({ ...codex(armed, ''), tool_name: 'Bash', tool_input: { command } });
    const outcome = await handleHookPayload(value, { host, agent: 'codex', env: {}, oversized });
    expect(outcome.decision).toMatchObject({ kind: 'deny' });
  });
});
