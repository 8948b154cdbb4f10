// `npm run manifest` of every package: `oclif manifest` in the package's directory, without the
// oclif dev CLI's "update available" notice (it asks the registry on each of the nine builds and
// says nothing about Cordon; the pinned major is on purpose: newer majors need Node 22).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const bin = createRequire(import.meta.url).resolve('oclif/bin/run.js');
const result = spawnSync(process.execPath, [bin, 'manifest'], { stdio: 'inherit', env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true' } });
process.exit(result.status ?? 1);
