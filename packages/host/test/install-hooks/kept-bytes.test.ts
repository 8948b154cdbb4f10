import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../test/support/cli.js';
import { cordonJson, hooksSandbox, writeFiles } from './support.js';

// What the user wrote next to cordon's hooks survives install and uninstall byte for byte, also
// without the install record (another machine, a wiped data dir), where uninstall can only take
// cordon's entries out. Found by a hostile-input probe: an event list the user left empty
// (`"Stop": []`, `on_session_end: []`) was dropped by install (and so missing after uninstall),
// for every agent. (An empty list of an event cordon writes itself, or an empty `"hooks": {}`,
// cannot be told from one install made, without the record: uninstall removes those.)

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let home: string;
let project: string;

beforeEach(() => {
  ({ sandbox, home, project, env } = hooksSandbox('cordon-hooks-kept-bytes-'));
});
afterEach(() => sandbox.cleanup());

describe("the user's empty event lists", () => {
  const configs: Array<[string, string, string, (text: string) => unknown]> = [
    ['claude-code', '.claude/settings.json', '{\n  "hooks": {\n    "Stop": [],\n    "SubagentStop": []\n  }\n}\n', (t) => JSON.parse(t).hooks.Stop],
    ['codex', '.codex/hooks.json', '{\r\n  "hooks": {\r\n    "Stop": []\r\n  }\r\n}\r\n', (t) => JSON.parse(t).hooks.Stop],
    ['gemini', '.gemini/settings.json', '{\n  // mine\n  "hooks": {\n    "BeforeModel": [],\n  },\n}\n', (t) => t.includes('"BeforeModel": []')],
    ['cursor', '.cursor/hooks.json', '{"version": 1, "hooks": {"stop": []}}\n', (t) => JSON.parse(t).hooks.stop],
    ['hermes', '.hermes/config.yaml', 'model: x\nhooks:\n  on_session_end: []  # mine\n', (t) => t.includes('  on_session_end: []  # mine\n')],
  ];

  it('stay through install, and uninstall without the install record gives back the exact bytes', async () => {
    for (const [agent, path, text, kept] of configs) {
      writeFiles(home, { [path]: text });
      const install = await cordonJson(['install-hooks', '--agent', agent, '--write'], env, project);
      expect([agent, install.exitCode], install.stderr).toEqual([agent, 0]);
      const installed = readFileSync(join(home, path), 'utf8');
      expect(installed, agent).toContain(`hook --agent ${agent}`);
      expect([agent, kept(installed)]).toEqual([agent, kept(text)]);
      rmSync(join(sandbox.dataDir, 'install-hooks.json'));
      const uninstall = await cordonJson(['uninstall-hooks', '--agent', agent, '--write'], env, project);
      expect([agent, uninstall.exitCode], uninstall.stderr).toEqual([agent, 0]);
      expect([agent, readFileSync(join(home, path), 'utf8')]).toEqual([agent, text]);
    }
  });
});
