import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { storedCommand } from '../../src/hot/summary.js';
import { MAX_COMMAND_CHARS } from '../../src/telemetry/markers.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';
import { AGENT_PLUGINS, FIXTURES, hookViaSocket, PATIENT_HOOK_ENV, tapPlugin } from './support.js';

// The hook recorded each tool call's command verbatim in markers.jsonl (and so in
// telemetry.sqlite3, reduce, analyze and top): an agent's `curl -H 'Authorization: Bearer …'`
// put the token there. Markers now keep the command with its secrets as `***`
// (src/hot/summary.ts storedCommand over src/output/redact.ts); taps still see it whole.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-hook-redact-');
  sandbox.env.CORDON_SAMPLER = 'off';
  Object.assign(sandbox.env, PATIENT_HOOK_ENV);
});
afterEach(() => sandbox.cleanup());

describe('hook markers', () => {
  it("keep a call's command with its secrets as ***, while a tap gets it as sent", async () => {
    // The tap denies only when it sees the real token, so the deny proves what taps get.
    const tap = tapPlugin(sandbox.dir('plugin-seer'), 'seer', 'async (call) => call.command.includes("Bearer s3cr3tvalue") ? { kind: "deny", reason: "saw " + call.command } : undefined');
    linkPluginRoots(sandbox.dataDir, [...AGENT_PLUGINS, tap]);
    const payload = JSON.parse(readFileSync(join(FIXTURES, 'claude-code.PreToolUse.Bash.json'), 'utf8'));
    payload.tool_input.command = "curl -H 'Authorization: Bearer s3cr3tvalue' https://api.example.com/x";
    const r = await hookViaSocket(['--agent', 'claude-code'], JSON.stringify(payload), false, sandbox.env);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    const markers = readFileSync(join(sessionDir(sandbox.dataDir, payload.session_id), 'markers.jsonl'), 'utf8');
    expect(markers).not.toContain('s3cr3tvalue');
    const marker = JSON.parse(markers.trim()) as Record<string, unknown>;
    expect(marker).toMatchObject({ event: 'tool_denied', command: "curl -H 'Authorization: Bearer ***' https://api.example.com/x", error: "saw curl -H 'Authorization: Bearer ***' https://api.example.com/x" });
  });

  it('redact before they cut: a token across the 2,000-character cut is not left half shown', () => {
    const token = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
    const command = `${'x'.repeat(MAX_COMMAND_CHARS - 10)} ${token} and more`;
    const stored = storedCommand(command);
    expect(stored).toHaveLength(MAX_COMMAND_CHARS);
    expect(stored.endsWith(' ghp_*** a')).toBe(true);
    expect(storedCommand('ls -la /tmp')).toBe('ls -la /tmp');
  });

  it('a long secret shrunk by redaction does not leave half an emoji from the redaction window as U+FFFD', () => {
    // Redaction reads the first 2,000 + 4,096 units; the 5,001-character token shrinks to `***`,
    // so the window's end, inside the 6,096th unit's emoji, lands in what is kept.
    const command = `export API_TOKEN=${'x'.repeat(5001)} ${'😀'.repeat(3000)}`;
    const stored = storedCommand(command);
    expect(stored.includes('\ufffd')).toBe(false);
    expect(stored).toBe(`export API_TOKEN=*** ${'😀'.repeat(538)}`);
  });

  it('keeps whole characters of any well-formed command, wherever the redaction window ends', () => {
    const fill = fc.array(fc.constantFrom('😀', '𝄞', 'é', '中', 'a', ' '), { minLength: 2500, maxLength: 3500 }).map((a) => a.join(''));
    const lead = fc.constantFrom('export API_TOKEN=', "curl -H 'Authorization: Bearer ", 'mysql --password=', 'echo ');
    fc.assert(
      fc.property(lead, fc.integer({ min: 0, max: 6100 }), fill, (head, secret, tail) => {
        const stored = storedCommand(`${head}${'x'.repeat(secret)} ${tail}`);
        expect(stored.includes('\ufffd')).toBe(false);
        expect(stored.length).toBeLessThanOrEqual(MAX_COMMAND_CHARS);
      }),
      { numRuns: 100 },
    );
  });
});
