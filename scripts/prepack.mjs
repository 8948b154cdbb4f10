// `prepack` of every workspace package: builds the package (and the packages it references)
// before `npm pack` / `npm publish` reads its `files`, so a pack from a clean clone ships the
// compiled `dist/`, the bundles and the oclif manifest. Runs in the package's directory.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// Build output goes to stderr: `npm pack --json` prints its file list on stdout.
const run = (cmd, args) => execFileSync(cmd, args, { stdio: ['ignore', 2, 2] });

run(process.execPath, [tsc, '-b', '.']);
for (const script of ['bundle', 'manifest']) if (pkg.scripts?.[script]) run('npm', ['run', '--silent', script]);
