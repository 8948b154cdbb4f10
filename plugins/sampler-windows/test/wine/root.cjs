// The measured tree's root (Windows node.exe): a CPU burner and a 300 MB allocator, then exit.
const { spawn } = require('node:child_process');
const { join } = require('node:path');
const work = process.argv[2];
const kids = [spawn(process.execPath, [join(work, 'burn.cjs'), work], { stdio: 'ignore' }), spawn(process.execPath, [join(work, 'alloc.cjs'), work], { stdio: 'ignore' })];
let left = kids.length;
for (const k of kids) k.on('exit', () => { if (--left === 0) setTimeout(() => process.exit(0), 500); });
