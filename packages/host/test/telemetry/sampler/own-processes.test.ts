import { describe, expect, it } from 'vitest';
import { classifyOwnProcess, splitCmdline } from '../../../src/telemetry/sampler/own-processes.js';

describe('classifyOwnProcess', () => {
  it('recognises the hook command install-hooks writes, direct or through its shebang', () => {
    expect(classifyOwnProcess(['/usr/bin/node', '/opt/cordon/packages/host/bin/run.js', 'hook', '--agent', 'claude-code'])).toBe('subtree');
    expect(classifyOwnProcess(['node', '/usr/local/bin/cordon', 'hook', '--agent', 'codex'])).toBe('subtree');
    expect(classifyOwnProcess(['/usr/local/bin/cordon', 'hook', '--agent', 'gemini'])).toBe('subtree');
  });

  it('recognises the hook command inside a `sh -c` wrapper, quoted or not', () => {
    expect(classifyOwnProcess(['/bin/sh', '-c', `'/usr/bin/node' '/a b/bin/run.js' hook --agent cursor`])).toBe('subtree');
    expect(classifyOwnProcess(['bash', '-c', '/usr/bin/node /opt/host/bin/run.js hook --agent claude-code'])).toBe('subtree');
    expect(classifyOwnProcess(['sh', '-c', 'cordon hook --agent hermes'])).toBe('subtree');
  });

  it('recognises the wrap shell shim and its launcher as the shim only', () => {
    expect(classifyOwnProcess(['/usr/bin/node', '/opt/cordon/plugins/aider/dist/shim/shell.js', '-c', 'ls'])).toBe('self');
    expect(classifyOwnProcess(['/bin/sh', '/tmp/s/shim/cordon-shell', '-c', 'ls'])).toBe('self');
  });

  it('leaves the agent’s own commands alone', () => {
    expect(classifyOwnProcess(['node', '/work/app/bin/run.js', 'build'])).toBeUndefined();
    expect(classifyOwnProcess(['bash', '-c', 'cat hook.txt && ls /work/cordon'])).toBeUndefined();
    expect(classifyOwnProcess(['bash', '-c', 'npx vitest run test/e2e/hooks'])).toBeUndefined();
    expect(classifyOwnProcess(['git', 'hook', 'run', 'pre-commit'])).toBeUndefined();
    expect(classifyOwnProcess([])).toBeUndefined();
  });

  it('splits /proc/<pid>/cmdline on NUL', () => {
    expect(splitCmdline('node\0/x/bin/run.js\0hook\0')).toEqual(['node', '/x/bin/run.js', 'hook']);
    expect(splitCmdline('')).toEqual([]);
  });
});
