import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeSandbox, REPO_ROOT, runProcess, type Sandbox } from '../../support/cli.js';

// The README's Install steps from a checkout, as written (the build aside: the suite has built
// it), into a temporary npm prefix: afterwards `cordon` and `pcodx` (docs/pcodx.md: "@cordon/codex
// also installs pcodx") are commands on PATH. `pcodx` once stayed in node_modules/.bin.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-readme-install-');
});
afterEach(() => sandbox.cleanup());

/** The commands of the README's first `sh` block under "## Install", comments cut. */
function installSteps(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Install\n'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

it("the README's install from a checkout puts cordon and pcodx on PATH, and pcodx reaches cordon's ledger", async () => {
  const steps = installSteps();
  expect(steps[0]).toBe('npm ci && npm run build');
  const prefix = sandbox.dir('prefix');
  // PATH as a user's shell has it: npm and npx (which run this suite) add every node_modules/.bin above the checkout.
  const userPath = (process.env.PATH ?? '').split(delimiter).filter((dir) => !/node_modules[\\/]\.bin$/.test(dir));
  const env = { ...sandbox.env, npm_config_prefix: prefix, npm_config_audit: 'false', npm_config_fund: 'false', PATH: [join(prefix, 'bin'), ...userPath].join(delimiter) };
  for (const step of steps.slice(1)) {
    const r = await runProcess(['bash', '-c', step], { cwd: REPO_ROOT, env, timeoutMs: 300_000 });
    expect(r.exitCode, `${step}\n${r.stdout}\n${r.stderr}`).toBe(0);
  }
  for (const name of ['cordon', 'pcodx']) {
    const found = await runProcess(['bash', '-c', `command -v ${name}`], { env });
    expect(found.stdout.trim(), name).toBe(join(prefix, 'bin', name));
  }
  const db = join(sandbox.root, 'ledger.sqlite3');
  const init = await runProcess(['pcodx', 'init', '--session', 'readme', '--db', db], { env, cwd: sandbox.home });
  expect([init.exitCode, init.stdout, init.stderr]).toEqual([0, `session_id=readme\ndb_path=${db}\n`, '']);
}, 600_000);
