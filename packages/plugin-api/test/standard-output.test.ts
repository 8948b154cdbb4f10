import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// writeOutput (src/standard-output.ts; isTerminal: src/legacy-binding.ts) prints a fast command's output straight to descriptor 1
// or 2. Each case runs the built module in a process of its own, whose descriptors are the case.

const MODULE = pathToFileURL(join(import.meta.dirname, '../dist/standard-output.js')).href;
const BINDING = pathToFileURL(join(import.meta.dirname, '../dist/legacy-binding.js')).href;
let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'cordon-write-out-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Node source that imports writeOutput and isTerminal and runs `body`. */
const script = (body: string) => `import { writeOutput } from ${JSON.stringify(MODULE)};\nimport { isTerminal } from ${JSON.stringify(BINDING)};\n${body}`;

describe('writeOutput', () => {
  it('a file gets exactly the UTF-8 bytes, in order, on both descriptors', () => {
    const out = join(dir, 'out.txt');
    const err = join(dir, 'err.txt');
    const fds = [openSync(out, 'w'), openSync(err, 'w')];
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script("writeOutput(1, 'a\\u00e9\\u4e2d'); writeOutput(2, 'E'); writeOutput(1, '\\n'.repeat(3) + 'z'.repeat(200000));")], { stdio: ['ignore', fds[0]!, fds[1]!] });
    for (const fd of fds) closeSync(fd);
    expect(r.status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(`a\u00e9\u4e2d\n\n\n${'z'.repeat(200000)}`);
    expect(readFileSync(err, 'utf8')).toBe('E');
  });

  it('a reader that closed the pipe (EPIPE) ends the output quietly: later writes are dropped (each returns false, so a producer can stop), the exit code stays', async () => {
    // The reader is gone before the child writes; 1 MiB cannot fit in a pipe buffer either way.
    const child = spawn(process.execPath, ['--input-type=module', '-e', script("await new Promise((r) => setTimeout(r, 300)); const first = writeOutput(1, 'x'.repeat(1 << 20)); const later = writeOutput(1, 'more'); if (first !== false || later !== false) process.stderr.write('not false: ' + first + ' ' + later); process.exitCode = 3;")], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect({ code, stderr }).toEqual({ code: 3, stderr: '' });
  });

  it.runIf(process.platform === 'linux')('a descriptor left non-blocking (EAGAIN) gets the rest through the stream, every byte', async () => {
    // A FIFO opened O_NONBLOCK on both ends: the child's descriptor 1 shares the non-blocking write
    // end, so its write(2) fails with EAGAIN once the pipe buffer is full and nobody has read yet.
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writeEnd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const total = 1 << 20;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script(`await writeOutput(1, 'y'.repeat(${total})); writeOutput(1, 'E'); writeOutput(1, 'ND');`)], { stdio: ['ignore', writeEnd, 'pipe'] });
    // Its exit status, whenever Node reports it (end of input on the FIFO can come first).
    const status = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    closeSync(writeEnd);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Read only after a pause, so the child meets a full pipe first.
    await new Promise((r) => setTimeout(r, 500));
    const chunks: Buffer[] = [];
    const buf = Buffer.alloc(1 << 16);
    const { readSync } = await import('node:fs');
    let exited = false;
    child.once('exit', () => (exited = true));
    for (;;) {
      let n = 0;
      try {
        n = readSync(readEnd, buf, 0, buf.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        if (exited) break;
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      if (n === 0) break;
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    closeSync(readEnd);
    const text = Buffer.concat(chunks).toString();
    expect(stderr).toBe('');
    expect(text.length).toBe(total + 3);
    expect(text.endsWith('yEND')).toBe(true);
    expect(await status).toBe(0);
  });

  it('isTerminal: a file, a pipe and /dev/null are not terminals; a pseudo-terminal is', () => {
    const probe = script("process.stderr.write(JSON.stringify([isTerminal(0), isTerminal(1), isTerminal(99)]));");
    const out = openSync(join(dir, 'out.txt'), 'w');
    const asFile = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { stdio: ['pipe', out, 'pipe'], encoding: 'utf8' });
    closeSync(out);
    expect(asFile.stderr).toBe('[false,false,false]');
    const devNull = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    expect(devNull.stderr).toBe('[false,false,false]');
    // util-linux `script` gives the command a pseudo-terminal on 0 and 1.
    const file = join(dir, 'probe.mjs');
    writeFileSync(file, probe);
    const pty = spawnSync('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(file)}`, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], encoding: 'utf8' });
    if (pty.error) return; // no `script` here (not Linux): the cases above still ran
    expect(pty.stderr + pty.stdout).toContain('[true,true,false]');
  });
});
