import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IgnoreOracle } from '../../src/envelope/git/ignore-oracle.js';

// The long-lived `git check-ignore` behind the audit's ignore rules: when it fails, its stderr
// is the error's text, read from a pipe in whatever pieces git's writes arrive.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-ignore-oracle-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('IgnoreOracle', () => {
  it("a failed git's stderr keeps a character its writes split across two reads", async () => {
    // 😀 is F0 9F 98 80, written in two halves a moment apart.
    const git = join(dir, 'split-git');
    writeFileSync(git, "#!/bin/sh\nprintf 'fatal: \\360\\237' >&2\nsleep 0.3\nprintf '\\230\\200 gone\\n' >&2\nexit 128\n");
    chmodSync(git, 0o755);
    const oracle = new IgnoreOracle({ cwd: dir, env: process.env, gitBinary: git });
    try {
      await expect(oracle.ignored(['a.txt'])).rejects.toThrow('git check-ignore exited 128: fatal: 😀 gone');
    } finally {
      oracle.close();
    }
  });
});
