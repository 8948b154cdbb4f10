// Runs under the Windows node.exe (Wine) for `npm run bench:sampler`'s Windows row: times the
// plugin's TreeReader tick (one NtQuerySystemInformation call + parse + tree walk) on a tree of
// 50 processes (this node.exe's child node.exe root → 49 cmd.exe). Usage:
// node.exe sampler-tree.mjs <work dir> <ticks>; writes <work dir>/result.json.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WinTreeReader } from './sampler/tree.js';
import { createNtSnapshot } from './sampler/nt.js';

const [work, ticksArg] = process.argv.slice(2);
const TICKS = Number(ticksArg) || 40;
const TREE = 50;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// The root holds 49 interactive cmd.exe children waiting on their stdin pipe.
const rootCode = `const {spawn}=require('node:child_process');for(let i=0;i<${TREE - 1};i++)spawn('cmd.exe',['/k'],{stdio:['pipe','ignore','ignore']});setInterval(()=>{},1e6)`;
const root = spawn(process.execPath, ['-e', rootCode], { stdio: 'ignore' });
const snapshot = createNtSnapshot();
let reader;
for (let i = 0; !reader; i++) {
  try {
    reader = new WinTreeReader(root.pid, { snapshot, exclude: [process.pid] });
  } catch (e) {
    if (i > 200) throw e;
    await sleep(50);
  }
}
let n = 0;
for (let i = 0; i < 600 && n < TREE; i++) {
  await sleep(100);
  n = reader.read().nProcs;
}
const ticks = [];
let procs = 0;
for (let i = 0; i < TICKS; i++) {
  await sleep(250);
  const t0 = performance.now();
  const r = reader.read();
  ticks.push(performance.now() - t0);
  procs = r.nProcs;
}
const system = snapshot().length;
reader.close();
root.kill();
writeFileSync(join(work, 'result.json'), JSON.stringify({ ticks, procs, system }));
process.exit(0);
