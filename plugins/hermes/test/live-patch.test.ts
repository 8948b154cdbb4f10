import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PATIENT_HOOK_ENV } from '../../../packages/host/test/hot/support.js';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../test/support/cli.js';
import { makeRepo } from '../../../test/support/git.js';

// The built `cordon hook --agent hermes`, in a repository armed by the real `cordon arm --live
// --allow 'src/**'`, judging Hermes Agent `patch` calls in their multi-file mode (`mode: "patch"`,
// a V4A text in `patch`; tools/file_tools.py of NousResearch/hermes-agent) before they run.
// Hermes itself is not run (no Hermes install in the test cache): the payload has the shape of
// its pre_tool_call hook (the Hermes hooks docs; docs/hooks.md), handed over on a pipe as Hermes does.

let sandbox: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  sandbox = makeSandbox('cordon-hermes-live-patch-');
  env = { ...sandbox.env, ...PATIENT_HOOK_ENV };
  repo = makeRepo(join(sandbox.root, 'repo'), { 'src/app.py': 'print("hello")\n', 'README.md': '# demo\n' }, env);
  linkPlugins(sandbox.dataDir, ['hermes']);
  const armed = await runCordon(['arm', 'fix the app', '--allow', 'src/**', '--live'], { cwd: repo, env });
  expect(armed.exitCode, armed.stderr).toBe(0);
});
afterEach(() => sandbox.cleanup());

/** A Hermes pre_tool_call payload for a `patch` call in patch mode. */
function patchCall(patch: string): string {
  return JSON.stringify({ hook_event_name: 'pre_tool_call', session_id: 's-hermes', cwd: repo, tool_name: 'patch', tool_input: { mode: 'patch', patch }, extra: { tool_call_id: 'call_p1' } });
}

const hook = (input: string) => runCordon(['hook', '--agent', 'hermes'], { cwd: repo, env, input });

describe("a Hermes multi-file patch under cordon's live envelope", () => {
  it('is blocked in Hermes\' format when one of its files (relative, as Hermes resolves it) is outside --allow; nothing is written', async () => {
    const patch = '*** Begin Patch\n*** Update File: src/app.py\n-print("hello")\n+print("bye")\n*** Add File: docs/notes.md\n+out of bounds\n*** End Patch\n';
    const out = await hook(patchCall(patch));
    expect(out.exitCode).toBe(0);
    const reply = JSON.parse(out.stdout);
    expect(reply.decision).toBe('block');
    expect(reply.reason).toContain("cordon's live envelope refused this write");
    expect(reply.reason).toContain('path outside policy: docs/notes.md (matches no allow glob)');
    expect(reply.reason).not.toContain('src/app.py');
    expect(existsSync(join(repo, 'docs/notes.md'))).toBe(false);
  });

  it('judges both ends of a *** Move File: a move out of src/ is blocked, naming the destination', async () => {
    const out = await hook(patchCall('*** Begin Patch\n*** Move File: src/app.py -> lib/app.py\n*** End Patch\n'));
    expect(out.exitCode).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ decision: 'block' });
    expect(JSON.parse(out.stdout).reason).toContain('path outside policy: lib/app.py');
  });

  it('blocks a delete outside --allow given by absolute path', async () => {
    const out = await hook(patchCall(`*** Begin Patch\n*** Delete File: ${join(repo, 'README.md')}\n*** End Patch\n`));
    expect(JSON.parse(out.stdout).reason).toContain('path outside policy: README.md');
  });

  it('passes silently (exit 0, no output) when every file is inside --allow, and for a malformed patch', async () => {
    const inside = '*** Begin Patch\n*** Update File: src/app.py\n-print("hello")\n+print("bye")\n*** Add File: src/util.py\n+x = 1\n*** Move File: src/util.py -> src/lib/util.py\n*** End Patch\n';
    for (const patch of [inside, '*** Begin Patch\n@@ nothing here\n', '']) {
      const out = await hook(patchCall(patch));
      expect({ exitCode: out.exitCode, stdout: out.stdout, stderr: out.stderr }).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    }
  });
});
