#!/usr/bin/env node
// Links every first-party plugin of this checkout into the cordon data dir
// (`cordon plugins link plugins/<name> --no-install`), so `cordon` from this checkout has all
// dialects, runners and commands. Honours CORDON_DATA_DIR like cordon itself.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'packages/host/bin/run.cjs');
let failed = 0;
for (const name of readdirSync(join(root, 'plugins')).sort()) {
  const r = spawnSync(process.execPath, [bin, 'plugins', 'link', join(root, 'plugins', name), '--no-install'], { stdio: 'inherit' });
  if (r.status !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);
