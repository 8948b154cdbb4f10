import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { trustMovedTo } from '../src/dialect/scratch-home.js';

// The copy of config.toml Codex reads in the scratch CODEX_HOME: the trust keys of the user's hooks
// file must name the copy's, however TOML wrote them; nothing else changes.

describe('trustMovedTo', () => {
  const to = '/tmp/cordon-codex-check-x';

  it('moves the keys of the hooks file under the home, in basic and literal strings, and nothing else', () => {
    const from = '/home/ann/.codex';
    const text = [
      'model = "gpt-5.5"',
      'sqlite_home = "/home/ann/.codex/db"',
      `[hooks.state."${from}/hooks.json:pre_tool_use:0:0"]`,
      'trusted_hash = "sha256:a"',
      `[hooks.state.'${from}/hooks.json:session_end:0:0']`,
      'trusted_hash = "sha256:b"',
      '[hooks.state."/home/ann/.codex2/hooks.json:pre_tool_use:0:0"]',
      'trusted_hash = "sha256:c"',
      '',
    ].join('\n');
    const moved = parse(trustMovedTo(text, from, to)) as { sqlite_home: string; hooks: { state: Record<string, unknown> } };
    expect(Object.keys(moved.hooks.state)).toEqual([`${to}/hooks.json:pre_tool_use:0:0`, `${to}/hooks.json:session_end:0:0`, '/home/ann/.codex2/hooks.json:pre_tool_use:0:0']);
    expect(moved.sqlite_home).toBe('/home/ann/.codex/db');
  });

  it('a home whose path TOML escapes (a quote) is found escaped in a basic string', () => {
    const from = '/home/a"b/.codex';
    const text = `[hooks.state.${JSON.stringify(`${from}/hooks.json:pre_tool_use:0:0`)}]\ntrusted_hash = "sha256:a"\n`;
    expect(Object.keys((parse(trustMovedTo(text, from, to)) as any).hooks.state)).toEqual([`${to}/hooks.json:pre_tool_use:0:0`]);
  });
});
