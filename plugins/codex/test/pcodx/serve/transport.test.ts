import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenWs } from '../../../src/pcodx/serve/transport.js';

// The serve's unix socket file: made without replacing anything, and removed at the end only
// while it is still the serve's own. Before, closing unlinked whatever was at the path by then
// (a file the user put there, another serve's live socket): both cordon and libuv removed it by name.

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'cordon-transport-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const unix = (path: string) => ({ kind: 'unix' as const, path });
const options = { maxPayload: 1024 };

/** Whether something accepts connections on the unix socket `path`. */
const accepts = (path: string): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe.runIf(process.platform !== 'win32')('the serve\'s unix socket file', () => {
  it('is made at the path, accepts connections, leaves no scratch name, and is removed at close', async () => {
    const path = join(dir, 'serve.sock');
    const listener = await listenWs(unix(path), options);
    expect(lstatSync(path).isSocket()).toBe(true);
    expect(await accepts(path)).toBe(true);
    expect(readdirSync(dir)).toEqual(['serve.sock']);
    await listener.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a file put at the path while the serve ran is left at close', async () => {
    const path = join(dir, 'serve.sock');
    const listener = await listenWs(unix(path), options);
    unlinkSync(path);
    writeFileSync(path, 'the user\'s own file\n');
    await listener.close();
    expect(readFileSync(path, 'utf8')).toBe('the user\'s own file\n');
  });

  it('another serve\'s socket at the path stays, and keeps accepting, when the first serve closes', async () => {
    const path = join(dir, 'serve.sock');
    const first = await listenWs(unix(path), options);
    unlinkSync(path);
    const second = await listenWs(unix(path), options);
    await first.close();
    expect(await accepts(path)).toBe(true);
    await second.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a path near the socket length limit is bound in place', async () => {
    const path = join(dir, `${'s'.repeat(100 - dir.length)}.sock`);
    const listener = await listenWs(unix(path), options);
    expect(await accepts(path)).toBe(true);
    await listener.close();
    expect(readdirSync(dir)).toEqual([]);
  });
});
