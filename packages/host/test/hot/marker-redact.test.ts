import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { storedCommand } from '../../src/hot/summary.js';
import { redactText } from '../../src/output/redact.js';
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

  it('a secret across the redaction window\'s end leaves no part of it, when redaction before it brings the margin into what is kept', () => {
    // The token before shrinks by 5,000 characters, so what is kept reaches the window's end
    // (2,000 + 4,096), where only `ghp_` and a few characters of the next token are inside.
    const shrinks = `export API_TOKEN=${'x'.repeat(5001)} `;
    const body = 'Q7RzT9uVw2XyZ5aB8cD1eF4gH6iJ0kLmNo';
    for (const inside of [1, 2, 6, 12, 29]) {
      const at = 2000 + 4096 - 4 - inside;
      const command = `${shrinks}${'a'.repeat(at - shrinks.length - 1)} ghp_${body} tail`;
      const stored = storedCommand(command);
      expect(stored, `${inside} inside`).not.toContain(`ghp_${body.slice(0, inside)}`);
      expect(stored, `${inside} inside`).toContain('ghp_***');
    }
  });

  it('a secret longer than the margin, cut by the window where no rule could tell it yet, leaves no part of it', () => {
    const body = 'QVYZ56789'.repeat(800); // 7,200 characters
    for (const command of [`curl -d '{"password": "${body}"}' https://api.example.com`, `git clone https://me:${body}@example.com/r.git`, `curl -H "X: eyJhbGciOiJIUzI1NiJ9.eyJ${body}.sig" x`, `bash -c 'curl -u admin:${body} https://x'`, `echo ghp_${body}`]) {
      const stored = storedCommand(command);
      expect(stored, command.slice(0, 30)).not.toMatch(/[QVYZ5-9]{2}/);
    }
  });

  it('no part of a recognised secret survives the cut, wherever in a long command it starts (property)', () => {
    const alphabet = 'QVYZ56789';
    const body = (n: number) => Array.from({ length: n }, (_, i) => alphabet[(i * 7 + n) % alphabet.length]).join('');
    const secret = fc.oneof(
      fc.constant(`ghp_${body(36)}`),
      fc.constant(`AKIA${body(16)}`),
      fc.constant(`npm_${body(36)}`),
      fc.integer({ min: 20, max: 9000 }).map((n) => `eyJ${body(12)}.eyJ${body(n)}.${body(20)}`),
      fc.integer({ min: 1, max: 9000 }).map((n) => `https://user:${body(n)}@example.com/x`),
      fc.integer({ min: 1, max: 9000 }).map((n) => `'{"password": "${body(n)}"}'`),
      fc.integer({ min: 1, max: 9000 }).map((n) => `DB_PASSWORD=${body(n)}`),
      fc.integer({ min: 1, max: 9000 }).map((n) => `--token ${body(n)}`),
      fc.integer({ min: 1, max: 9000 }).map((n) => `-H 'Authorization: Bearer ${body(n)}'`),
      fc.integer({ min: 1, max: 9000 }).map((n) => `bash -c 'curl -u admin:${body(n)} x'`),
      fc.integer({ min: 1, max: 9000 }).map((n) => `su -c 'mysql -p${body(n)} db' app`),
      fc.integer({ min: 1, max: 9000 }).map((n) => `GIT_SSH_COMMAND='ssh -o ProxyCommand="sshpass -p ${body(n)} ssh b"' git fetch`),
      fc.integer({ min: 1, max: 9000 }).map((n) => `find . -exec mysql -p${body(n)} {} \\;`),
      fc.integer({ min: 1, max: 9000 }).map((n) => `watch -n 5 mysql -p${body(n)} db`),
    );
    // Filler: plain words, and secrets of another alphabet that shrink by a random amount.
    const filler = fc.array(fc.oneof(fc.constantFrom('ls -la ', 'echo hello ', '&& ', 'a'.repeat(500) + ' '), fc.integer({ min: 10, max: 6000 }).map((n) => `export API_TOKEN=${'x'.repeat(n)} `)), { maxLength: 8 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(filler, fc.integer({ min: 0, max: 9000 }), secret, (lead, pad, s) => {
        const command = `${lead}${'b'.repeat(pad)}; ${s} done`;
        expect(redactText(command)).not.toMatch(/[QVYZ5-9]{2}/);
        const stored = storedCommand(command);
        expect(stored).not.toMatch(/[QVYZ5-9]{2}/);
        expect(stored.length).toBeLessThanOrEqual(MAX_COMMAND_CHARS);
      }),
      { numRuns: 200 },
    );
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
