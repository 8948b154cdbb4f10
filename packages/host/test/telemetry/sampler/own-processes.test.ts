import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcTreeReader } from '../../../src/telemetry/sampler/linux/proc-tree.js';
import { classifyOwnProcess, splitCmdline } from '../../../src/telemetry/sampler/own-processes.js';

describe('classifyOwnProcess', () => {
  it('recognises the hook command install-hooks writes, direct or through its shebang', () => {
    expect(classifyOwnProcess(['/usr/bin/node', '/opt/cordon/packages/host/bin/run.cjs', 'hook', '--agent', 'claude-code'])).toBe('subtree');
    expect(classifyOwnProcess(['node', '/usr/local/bin/cordon', 'hook', '--agent', 'codex'])).toBe('subtree');
    expect(classifyOwnProcess(['/usr/local/bin/cordon', 'hook', '--agent', 'gemini'])).toBe('subtree');
  });

  it('still recognises hook commands written before the entry became bin/run.cjs', () => {
    expect(classifyOwnProcess(['/usr/bin/node', '/opt/cordon/packages/host/bin/run.js', 'hook', '--agent', 'claude-code'])).toBe('subtree');
  });

  it('recognises the hook command inside a `sh -c` wrapper, quoted or not', () => {
    expect(classifyOwnProcess(['/bin/sh', '-c', `'/usr/bin/node' '/a b/bin/run.cjs' hook --agent cursor`])).toBe('subtree');
    expect(classifyOwnProcess(['bash', '-c', '/usr/bin/node /opt/host/bin/run.js hook --agent claude-code'])).toBe('subtree');
    expect(classifyOwnProcess(['sh', '-c', 'cordon hook --agent hermes'])).toBe('subtree');
    expect(classifyOwnProcess(['sh', '-c', `'/usr/bin/node' '/it'\\''s (mine)/bin/run.cjs' hook --agent claude-code`])).toBe('subtree');
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
    // A shell command that only mentions the hook (the agent works on cordon itself) is the agent's:
    // its tree, `npm test` included, counts.
    expect(classifyOwnProcess(['bash', '-c', 'grep -rn "cordon hook" docs && npm test'])).toBeUndefined();
    expect(classifyOwnProcess(['/bin/sh', '-c', "echo 'see bin/run.cjs hook'; make -j8"])).toBeUndefined();
    expect(classifyOwnProcess(['sh', '-c', 'cordon hook --agent x; make -j8'])).toBeUndefined();
    expect(classifyOwnProcess([])).toBeUndefined();
  });

  it('splits /proc/<pid>/cmdline on NUL', () => {
    expect(splitCmdline('node\0/x/bin/run.js\0hook\0')).toEqual(['node', '/x/bin/run.js', 'hook']);
    expect(splitCmdline('')).toEqual([]);
  });
});

describe('ProcTreeReader on a process read between fork and exec', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  /** A procfs stand-in: `<pid>/stat` (proc(5) layout, `rss` field 24 in pages) and `<pid>/cmdline`. */
  function fakeProc() {
    const root = mkdtempSync(join(tmpdir(), 'cordon-fake-proc-'));
    dirs.push(root);
    return {
      root,
      process(pid: number, ppid: number, rssPages: number, argv: string[]): void {
        mkdirSync(join(root, String(pid)), { recursive: true });
        const fields = Array.from({ length: 52 }, () => '0');
        fields[0] = String(pid);
        fields[1] = '(p)';
        fields[2] = 'S';
        fields[3] = String(ppid);
        fields[23] = String(rssPages);
        // Rewritten in place (same inode), as the reader keeps stat descriptors open.
        writeFileSync(join(root, String(pid), 'stat'), fields.join(' ') + '\n');
        writeFileSync(join(root, String(pid), 'cmdline'), argv.map((a) => a + '\0').join(''));
      },
    };
  }

  it('looks once more at a child that still showed its parent’s command line, and drops it once it is a cordon hook', () => {
    const proc = fakeProc();
    const agent = ['node', '/opt/agent/cli.js'];
    proc.process(100, 1, 1000, agent);
    const reader = new ProcTreeReader(100, { procRoot: proc.root, units: { pageSize: 4096, clockTicks: 100 }, fullScanMs: 0, exclude: [] });
    proc.process(101, 100, 1000, agent); // forked, not yet exec'd
    expect(reader.read()).toMatchObject({ nProcs: 2, rssBytes: 2000 * 4096 });
    proc.process(101, 100, 15000, ['/bin/sh', '-c', `'/usr/bin/node' '/opt/cordon/bin/run.cjs' hook --agent claude-code`]);
    expect(reader.read()).toMatchObject({ nProcs: 1, rssBytes: 1000 * 4096 });
    // A plain fork that stays the same program is counted; it is read again only once.
    proc.process(102, 100, 500, agent);
    expect(reader.read()).toMatchObject({ nProcs: 2, rssBytes: 1500 * 4096 });
    expect(reader.read()).toMatchObject({ nProcs: 2, rssBytes: 1500 * 4096 });
    reader.close();
  });

  // /proc/loadavg names the last pid of the reader's own namespace; a /proc of another namespace
  // (its `self` names another pid) must not be probed by those numbers.
  for (const [name, self, found] of [
    ['lists /proc on every tick when its `self` names another pid (another pid namespace)', '1', true],
    ['trusts the pid counter when /proc is its own: an unmoved counter means nothing new', String(process.pid), false],
  ] as const) {
    it(name, () => {
      const proc = fakeProc();
      const agent = ['node', '/opt/agent/cli.js'];
      symlinkSync(self, join(proc.root, 'self'));
      writeFileSync(join(proc.root, 'loadavg'), '0.00 0.00 0.00 1/100 100\n');
      proc.process(100, 1, 1000, agent);
      const reader = new ProcTreeReader(100, { procRoot: proc.root, units: { pageSize: 4096, clockTicks: 100 }, exclude: [] });
      expect(reader.read().nProcs).toBe(1);
      proc.process(101, 100, 500, ['sleep', '30']); // the counter in loadavg does not move
      expect(reader.read().nProcs).toBe(found ? 2 : 1);
      reader.close();
    });
  }
});
