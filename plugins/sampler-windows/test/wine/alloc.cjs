// Waits for the sampler's "go" (the tree has been sampled at rest), touches 300 MB, and holds them
// until the loop has written three more readings (a minute at most).
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const go = join(process.argv[2], 'go');
const readings = () => readFileSync(join(process.argv[2], 'samples.jsonl'), 'utf8').split('\n').filter(Boolean).length;
const deadline = Date.now() + 60_000;
const poll = setInterval(() => {
  if (!existsSync(go) && Date.now() < deadline) return;
  clearInterval(poll);
  globalThis.keep = Buffer.alloc(300 * 1024 * 1024, 1);
  const before = readings();
  const end = Date.now() + 60_000;
  const hold = setInterval(() => {
    if (readings() >= before + 3 || Date.now() > end) clearInterval(hold);
  }, 50);
}, 100);
