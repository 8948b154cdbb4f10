// Runs under the Windows node.exe (Wine): the plugin's TreeReader, fed by the real
// NtQuerySystemInformation call, sampling a tree of node.exe processes every 250 ms.
// Usage: node.exe loop.mjs <work dir>   (writes <work dir>/samples.jsonl; stdout must be a file).
// The host's own sampler loop (lock, detached start) is not driven here: this checks the
// platform part, the reader, against real Windows-API processes.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WinTreeReader } from './sampler/tree.js';
import { createNtQuery, createNtSnapshot } from './sampler/nt.js';
import { parseProcessTable } from './sampler/process-table.js';

const work = process.argv[2];
const out = join(work, 'samples.jsonl');
writeFileSync(out, '');
const log = (o) => appendFileSync(out, JSON.stringify(o) + '\n');

// A recorded buffer for the parser's unit test (one real table, Wine's processes included).
const query = createNtQuery();
const { buf, length } = query();
writeFileSync(join(work, 'table.bin'), buf.subarray(0, length));
log({ recorded: parseProcessTable(buf, length).map((p) => ({ ...p, createTime: String(p.createTime) })), self: process.pid });

const root = spawn(process.execPath, [join(work, 'root.cjs'), work], { stdio: 'ignore' });
// The root must be in the table before the reader opens it.
let reader;
for (let i = 0; !reader; i++) {
  try {
    reader = new WinTreeReader(root.pid, { snapshot: createNtSnapshot(), exclude: [process.pid] });
  } catch (e) {
    if (i > 100) throw e;
    await new Promise((r) => setTimeout(r, 50));
  }
}
log({ root: root.pid });
const started = Date.now();
let threeInARow = 0;
for (;;) {
  await new Promise((r) => setTimeout(r, 250));
  const r = await reader.read();
  log({ t: Date.now() - started, ...r });
  // Let the allocating child go once the whole tree (root + 2 children) has been seen at rest.
  threeInARow = r.nProcs >= 3 ? threeInARow + 1 : 0;
  if (threeInARow >= 3 && !existsSync(join(work, 'go'))) writeFileSync(join(work, 'go'), '');
  if (!r.rootAlive) { log({ stop: 'root-exited' }); break; }
  if (Date.now() - started > 90_000) { log({ stop: 'timeout' }); break; }
}
reader.close();
