// Burns CPU for 3 s (a load; the test compares the CPU it used, not the wall time), records what
// it used, then idles until the loop has written two more readings, so the sampler reads its final
// counters (a minute at most).
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const t = Date.now();
let x = 0;
while (Date.now() - t < 3000) x += Math.sqrt(x + 1);
const u = process.cpuUsage();
writeFileSync(join(process.argv[2], 'burn.json'), JSON.stringify({ cpuMs: (u.user + u.system) / 1000, x }));
const readings = () => readFileSync(join(process.argv[2], 'samples.jsonl'), 'utf8').split('\n').filter(Boolean).length;
const before = readings();
const end = Date.now() + 60_000;
const idle = setInterval(() => {
  if (readings() >= before + 2 || Date.now() > end) clearInterval(idle);
}, 50);
