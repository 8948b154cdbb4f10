// Burns CPU for 3 s, records what it used, then idles 1.5 s so the sampler reads its final counters.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const t = Date.now();
let x = 0;
while (Date.now() - t < 3000) x += Math.sqrt(x + 1);
const u = process.cpuUsage();
writeFileSync(join(process.argv[2], 'burn.json'), JSON.stringify({ cpuMs: (u.user + u.system) / 1000, x }));
setTimeout(() => {}, 1500);
