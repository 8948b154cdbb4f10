import { describe, expect, it } from 'vitest';
import { jsonDocument, yamlDocument } from '../../src/install-hooks/formats/index.js';
import { hookLists } from '../../src/install-hooks/hook-lists.js';

// The `hooks` map editor every installer borrows (InstallContext.hookLists), on real editors.

const OURS = '/usr/bin/node /opt/cordon/bin/run.js hook --agent x';
const STALE = 'cordon hook --agent x';
const isOurs = (command: unknown): boolean => command === OURS || command === STALE;
const handler = (command: string) => ({ type: 'command', command });

describe('grouped lists (Claude Code, Codex, Gemini CLI)', () => {
  const settings = {
    model: 'm',
    hooks: {
      PreToolUse: [
        { matcher: '*', hooks: [handler('echo user'), handler(STALE)] },
        { matcher: '*', hooks: [handler(OURS)] },
      ],
      PostToolUse: [{ matcher: '*', hooks: [handler(STALE)] }],
    },
    z: 1,
  };

  it('keeps the current command once per event, drops stale ones and the groups and lists they empty', () => {
    const doc = jsonDocument('/s.json', JSON.stringify(settings, null, 2));
    const kept = hookLists.removeCommands(doc, { layout: 'grouped', isOurs, keep: OURS });
    expect([...kept]).toEqual(['PreToolUse']);
    expect(doc.value).toEqual({ model: 'm', hooks: { PreToolUse: [{ matcher: '*', hooks: [handler('echo user')] }, { matcher: '*', hooks: [handler(OURS)] }] }, z: 1 });
  });

  it('without keep removes every cordon handler and the emptied hooks map, nothing of the user\'s', () => {
    const doc = jsonDocument('/s.json', JSON.stringify({ ...settings, hooks: { PostToolUse: settings.hooks.PostToolUse } }, null, 2));
    expect(hookLists.removeCommands(doc, { layout: 'grouped', isOurs }).size).toBe(0);
    expect(doc.toString()).toBe(JSON.stringify({ model: 'm', z: 1 }, null, 2));
  });

  it('an install keeps an emptied hooks map where it was (it appends to it next)', () => {
    const doc = jsonDocument('/s.json', JSON.stringify({ hooks: { PostToolUse: settings.hooks.PostToolUse }, z: 1 }, null, 2));
    hookLists.removeCommands(doc, { layout: 'grouped', isOurs, keep: OURS });
    expect(doc.toString()).toBe(JSON.stringify({ hooks: {}, z: 1 }, null, 2));
  });

  it('leaves values of another shape alone', () => {
    for (const value of [{ hooks: [1] }, { hooks: [] }, { hooks: { SessionStart: {} } }, { hooks: { Stop: [null, 'x', { hooks: 'no' }] } }]) {
      const text = JSON.stringify(value, null, 2);
      const doc = jsonDocument('/s.json', text);
      hookLists.removeCommands(doc, { layout: 'grouped', isOurs, keep: OURS });
      expect(doc.toString()).toBe(text);
    }
  });
});

describe('flat lists (Cursor, Hermes)', () => {
  it('removes cordon handlers from YAML, keeps comments and the user\'s handlers', () => {
    const text = `# mine\nhooks:\n  pre_tool_call:\n    - command: ${STALE}\n    - command: echo user # theirs\n  post_tool_call:\n    - command: ${OURS}\n`;
    const doc = yamlDocument('/c.yaml', text);
    const kept = hookLists.removeCommands(doc, { layout: 'flat', isOurs, keep: OURS });
    expect([...kept]).toEqual(['post_tool_call']);
    expect(doc.toString()).toBe(`# mine\nhooks:\n  pre_tool_call:\n    - command: echo user # theirs\n  post_tool_call:\n    - command: ${OURS}\n`);
    hookLists.removeCommands(doc, { layout: 'flat', isOurs });
    expect(doc.value).toEqual({ hooks: { pre_tool_call: [{ command: 'echo user' }] } });
  });

  it('keeps the first of several current handlers of one event, and lists the removal', () => {
    const doc = jsonDocument('/h.json', JSON.stringify({ version: 1, hooks: { stop: [{ command: OURS, timeout: 1 }, { command: OURS, timeout: 2 }] } }));
    const removed: string[] = [];
    hookLists.removeCommands(doc, { layout: 'flat', isOurs, keep: OURS, removed });
    expect(doc.value).toEqual({ version: 1, hooks: { stop: [{ command: OURS, timeout: 1 }] } });
    expect(removed).toEqual(['stop entry 2: removed duplicate cordon handler']);
  });
});
