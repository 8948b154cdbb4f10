// Waits for the sampler's "go" (the tree has been sampled at rest), touches 300 MB, holds 2 s.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const go = join(process.argv[2], 'go');
const deadline = Date.now() + 60_000;
const poll = setInterval(() => {
  if (!existsSync(go) && Date.now() < deadline) return;
  clearInterval(poll);
  globalThis.keep = Buffer.alloc(300 * 1024 * 1024, 1);
  setTimeout(() => {}, 2000);
}, 100);
