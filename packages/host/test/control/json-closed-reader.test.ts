import { spawn, spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, HANG_BOUND_MS, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';

// `control run --json` relays the command's stdout (to know whether the record needs a newline
// first). A reader that closed cordon's stdout early (`| head -c 20`) left cordon reading and
// dropping the output of a command that never stops writing (`yes`), for ever. The relay now
// closes the command's stdout too, so its next write fails as it would have without cordon.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-json-reader-');
});
afterEach(() => sandbox.cleanup());

/** Whether a process whose command line holds `marker` still runs. */
function running(marker: string): boolean {
  return spawnSync('pgrep', ['-f', marker]).status === 0;
}

describe('control run --json when the reader closes stdout early', () => {
  it('ends, and so does the command, instead of relaying into the void', async () => {
    const marker = `cordon-yes-${process.pid}-${Date.now()}`;
    const child = spawn(process.execPath, [CORDON_BIN, 'control', 'run', '--json', '--', 'sh', '-c', 'exec yes "$0"', marker], { env: sandbox.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const first = await new Promise<string>((done) => child.stdout.once('data', (d: Buffer) => done(d.toString('utf8'))));
    expect(first.startsWith(`${marker}\n`)).toBe(true);
    // What `head -c 20` does once it has its bytes.
    child.stdout.destroy();
    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | 'still running'>((done) => {
      const timer = setTimeout(() => done('still running'), HANG_BOUND_MS);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        done({ code, signal });
      });
    });
    if (ended === 'still running') child.kill('SIGKILL');
    expect(ended).not.toBe('still running');
    // yes reports the failed write and exits 1 (its stdout is a socket, whose peer reset it; a
    // SIGPIPE, 141, when nothing was left unread), and cordon ends with the command's status.
    expect(ended).toMatchObject({ signal: null });
    expect([1, 141]).toContain((ended as { code: number }).code);
    expect(stderr).not.toMatch(/EPIPE|Error:/);
    expect(running(marker)).toBe(false);
  });
});
