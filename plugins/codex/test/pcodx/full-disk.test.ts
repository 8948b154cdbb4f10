import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { linkCodex, pcodx } from './support.js';

// `cordon pcodx …` with its standard output on a full disk (/dev/full: every write fails with
// ENOSPC). The oclif pcodx commands write both through the plugin API's writeOutput and through
// process.stdout, and each said that the output failed: `sessions`, `init`,
// `current-session-message-ids` and `compact --dry-run --json` printed the line twice. Now it is
// said once, exit 1, as every cordon command on a full disk (docs/reference.md).

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox('cordon-pcodx-full-');
  linkCodex(box);
});
afterEach(() => box.cleanup());

const FULL = 'cordon: could not write standard output: no space left on the device (ENOSPC); what was printed is incomplete\n';

/** Runs `cordon pcodx ARGS` with its standard output on /dev/full; stderr collected. */
function toFullDisk(args: readonly string[], db: string): Promise<{ exitCode: number | null; stderr: string }> {
  const full = openSync('/dev/full', 'w');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CORDON_BIN, 'pcodx', ...args], { env: { ...box.env, PCODX_DB: db }, stdio: ['ignore', full, 'pipe'] });
    closeSync(full);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, stderr }));
  });
}

describe.runIf(process.platform === 'linux')('pcodx with standard output on a full disk', () => {
  it('says once that the output is incomplete, exit 1, whatever route the command prints by', async () => {
    const db = join(box.dir('ledger'), 'pcodx.sqlite3');
    for (const text of ['one', 'two']) expect((await pcodx(box, db, ['record', '--session', 's', '--role', 'user', '--text', text])).exitCode).toBe(0);
    const commands = [
      ['show'],
      ['ids', '--json'],
      ['sessions'],
      ['sessions', '--json'],
      ['init'],
      ['current-session-message-ids'],
      ['compact', '--from', 'msg1', '--to', 'msg2', '--summary', 'z', '--dry-run', '--json'],
      ['prompts'],
    ];
    for (const args of commands) expect([args, await toFullDisk(args, db)]).toEqual([args, { exitCode: 1, stderr: FULL }]);
  }, 120_000);
});
