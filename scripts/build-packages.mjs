// `npm run build` after `tsc -b`: each workspace package's own `bundle`, then `manifest` script,
// run directly with this Node in the package's directory, in workspace order. Not through
// `npm run --workspaces`: every nested npm re-reads the user's and the environment's npm
// configuration and may warn about it (a `.npmrc` `nodedir` makes npm 11 print two warnings per
// run), and starting npm twice per package costs seconds.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { split } from 'shlex';

const root = join(import.meta.dirname, '..');
const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const dirs = workspaces.flatMap((w) => (w.endsWith('/*') ? readdirSync(join(root, w.slice(0, -2))).sort().map((d) => join(root, w.slice(0, -2), d)) : [join(root, w)]));

for (const stage of ['bundle', 'manifest']) {
  for (const dir of dirs) {
    let pkg;
    try {
      pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    const script = pkg.scripts?.[stage];
    if (!script) continue;
    // The scripts are `node <file>`: run the file with this Node, no shell.
    const [program, ...args] = split(script);
    if (program !== 'node') throw new Error(`${pkg.name}: the ${stage} script must be \`node <file>\`, not ${script}`);
    const r = spawnSync(process.execPath, args, { cwd: dir, stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`${pkg.name}: ${stage} failed (${r.status ?? r.signal})`);
      process.exit(r.status || 1);
    }
  }
}
