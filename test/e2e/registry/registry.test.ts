// Publishing and installing Cordon as users get it: every workspace package packed from this
// checkout (its `prepack` builds it), published to a local verdaccio on 127.0.0.1, `@cordon/host`
// installed globally into a temporary prefix, plugins installed with `cordon plugins install`,
// and a third-party adapter (examples/acme-adapter) built against the published plugin API only.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runProcess, type RunResult } from '../../support/cli.js';
import { HOOK_PAYLOADS } from '../../support/fixtures.js';
import { startRegistry, type LocalRegistry } from '../../support/registry.js';
import { SAMPLE_WORKFLOW, expandExpressions, workflowSteps } from '../../support/github-workflow.js';
import { git, makeRepo, writeFiles } from '../../support/git.js';

const FIXTURES = HOOK_PAYLOADS;
const WORKSPACES = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).workspaces as string[];

/** Each workspace package directory with its package.json. */
function workspacePackages(): Array<{ dir: string; pkg: { name: string; bin?: Record<string, string>; oclif?: unknown; private?: boolean } }> {
  const dirs: string[] = [];
  for (const w of WORKSPACES) {
    if (w.endsWith('/*')) for (const d of readdirSync(join(REPO_ROOT, w.slice(0, -2)))) dirs.push(join(REPO_ROOT, w.slice(0, -2), d));
    else dirs.push(join(REPO_ROOT, w));
  }
  return dirs.filter((d) => existsSync(join(d, 'package.json'))).map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }));
}

function ok(r: RunResult, what: string): RunResult {
  if (r.exitCode !== 0) throw new Error(`${what} exited ${r.exitCode}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r;
}

let registry: LocalRegistry;
let work: string;
const tarballs = new Map<string, string>();
const packedFiles = new Map<string, string[]>();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cordon-publish-'));
  mkdirSync(join(work, 'packs'));
  // One `npm pack` per package, as a release would run it (prepack builds).
  for (const { dir, pkg } of workspacePackages()) {
    const r = ok(await runProcess(['npm', 'pack', '--json', '--pack-destination', join(work, 'packs')], { cwd: dir, timeoutMs: 300_000 }), `npm pack ${pkg.name}`);
    const [info] = JSON.parse(r.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarballs.set(pkg.name, join(work, 'packs', info!.filename));
    packedFiles.set(pkg.name, info!.files.map((f) => f.path));
  }
  registry = await startRegistry();
}, 900_000);

afterAll(async () => {
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('npm pack of every workspace package', () => {
  it('ships its built files: dist, bundles, bins and the oclif manifest', () => {
    for (const { pkg } of workspacePackages()) {
      const files = packedFiles.get(pkg.name)!;
      expect(files, pkg.name).toContain('package.json');
      expect(files, pkg.name).toContain('dist/index.js');
      expect(files, pkg.name).toContain('dist/index.d.ts');
      expect(files, pkg.name).toContain('README.md');
      if (pkg.oclif) expect(files, pkg.name).toContain('oclif.manifest.json');
      for (const bin of Object.values(pkg.bin ?? {})) expect(files, `${pkg.name} bin ${bin}`).toContain(bin.replace(/^\.\//, ''));
      const hooks = (pkg.oclif as { hooks?: Record<string, string | { target: string }> } | undefined)?.hooks ?? {};
      for (const h of Object.values(hooks)) {
        const target = typeof h === 'string' ? h : h.target;
        expect(files, `${pkg.name} hook ${target}`).toContain(target.replace(/^\.\//, ''));
      }
      expect(files.some((f) => f.startsWith('src/') || f.startsWith('test/')), `${pkg.name} ships no sources or tests`).toBe(false);
    }
  });
});

describe('installing from a registry', () => {
  it('npm install -g @cordon/host, plugins install/update/uninstall, a hook call, pcodx, and a third-party adapter', async () => {
    for (const name of ['@cordon/plugin-api', '@cordon/host', '@cordon/codex', '@cordon/claude-code', '@cordon/otlp']) ok(await registry.publish(tarballs.get(name)!), `publish ${name}`);

    // The third-party adapter: a separate package built against the published plugin API only,
    // type-checked with skipLibCheck off.
    const acme = join(work, 'acme');
    cpSync(join(REPO_ROOT, 'examples/acme-adapter'), acme, { recursive: true, filter: (src) => !src.includes('node_modules') && !src.includes('/dist') });
    const npmEnv = { ...process.env, ...registry.npmEnv };
    ok(await runProcess(['npm', 'install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], { cwd: acme, env: npmEnv, timeoutMs: 300_000 }), 'npm install in the example');
    ok(await runProcess([process.execPath, join(acme, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: acme }), 'tsc of the example (skipLibCheck off)');
    const acmePack = ok(await runProcess(['npm', 'pack', '--json', '--pack-destination', join(work, 'packs')], { cwd: acme, env: npmEnv, timeoutMs: 120_000 }), 'npm pack of the example');
    ok(await registry.publish(join(work, 'packs', (JSON.parse(acmePack.stdout) as Array<{ filename: string }>)[0]!.filename)), 'publish the example');

    // The host, installed globally as a user would (better-sqlite3 compiles: npm 11 runs its
    // install script only when allowed).
    const prefix = join(work, 'prefix');
    ok(
      await runProcess(['npm', 'install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', '--allow-scripts=better-sqlite3', '@cordon/host'], { env: npmEnv, timeoutMs: 900_000 }),
      'npm install -g @cordon/host',
    );
    const binDir = join(prefix, 'bin');
    expect(lstatSync(join(binDir, 'cordon')).isSymbolicLink()).toBe(true);
    const home = join(work, 'home');
    const env = {
      ...npmEnv,
      PATH: `${binDir}${delimiter}${process.env.PATH}`,
      HOME: home,
      CORDON_DATA_DIR: join(home, 'data'),
      CORDON_CONFIG_DIR: join(home, 'config'),
      CORDON_CACHE_DIR: join(home, 'cache'),
      // The machine's npm settings (e.g. nodedir for offline native builds) stay in effect.
      NPM_CONFIG_USERCONFIG: join(process.env.HOME ?? '/root', '.npmrc'),
    };
    const cordon = (args: string[], input?: string) => runProcess([join(binDir, 'cordon'), ...args], { env, input, cwd: work, timeoutMs: 600_000 });

    // As the README's Install section says: first-party plugins by their short names.
    for (const p of ['codex', 'claude-code', '@acme/cordon-plugin-acme']) {
      const r = ok(await cordon(['plugins', 'install', p]), `cordon plugins install ${p}`);
      if (p === 'codex') expect(r.stdout + r.stderr).toContain(`linked its command \`pcodx\` into ${binDir}`);
    }
    const list = ok(await cordon(['plugins']), 'cordon plugins').stdout;
    for (const p of ['@cordon/codex', '@cordon/claude-code', '@acme/cordon-plugin-acme']) expect(list).toContain(p);
    // The README's next step: doctor sees the plugins and a working SQLite driver.
    const doctor = JSON.parse(ok(await cordon(['doctor', '--json']), 'cordon doctor').stdout) as { ok: boolean; findings: Array<{ check: string; status: string; message: string }> };
    expect(doctor.findings.find((f) => f.check === 'sqlite')?.status).toBe('ok');
    expect(doctor.findings.find((f) => f.check === 'plugins')?.message).toContain('@cordon/codex@');

    // The plugin's bin is on PATH next to cordon and reaches the installed host.
    expect(lstatSync(join(binDir, 'pcodx')).isSymbolicLink()).toBe(true);
    const init = ok(await runProcess([join(binDir, 'pcodx'), 'init', '--session', 'registry-demo', '--db', join(home, 'ledger.sqlite3')], { env, cwd: work }), 'pcodx init');
    expect(init.stdout).toContain('session_id=registry-demo');

    // A Claude Code hook call through the installed dialect: silent, exit 0, one marker.
    const pre = readFileSync(join(FIXTURES, 'claude-code.PreToolUse.Bash.json'), 'utf8');
    const hook = ok(await cordon(['hook', '--agent', 'claude-code'], pre), 'cordon hook --agent claude-code');
    expect(hook.stdout).toBe('');
    const session = JSON.parse(pre).session_id as string;
    const markers = readFileSync(join(home, 'data/runs', session, 'markers.jsonl'), 'utf8').trim().split('\n');
    expect(markers.map((l) => JSON.parse(l).event)).toEqual(['tool_start']);

    // The third-party adapter: its payloads, its deny policy, and reduce over the session.
    const payload = (name: string) => readFileSync(join(REPO_ROOT, 'examples/acme-adapter/payloads', name), 'utf8');
    expect(ok(await cordon(['hook', '--agent', 'acme'], payload('before.json')), 'acme before').stdout).toBe('');
    expect(ok(await cordon(['hook', '--agent', 'acme'], payload('after.json')), 'acme after').stdout).toBe('');
    const denyEnv = { ...env, ACME_DENY: '^rm -rf' };
    const denied = ok(await runProcess([join(binDir, 'cordon'), 'hook', '--agent', 'acme'], { env: denyEnv, input: payload('denied.json'), cwd: work }), 'acme denied');
    expect(JSON.parse(denied.stdout)).toEqual({ allow: false, reason: 'blocked by acme policy: ^rm -rf' });
    const reduced = JSON.parse(ok(await cordon(['reduce', '--session', 'acme-s1', '--json']), 'reduce acme').stdout) as {
      sessions: Array<{ agent: string; denied_calls: number; n_toolcalls: number }>;
    };
    expect(reduced.sessions.map((s) => [s.agent, s.n_toolcalls, s.denied_calls])).toEqual([['acme', 1, 1]]);
    const calls = ok(await cordon(['reduce', '--session', 'acme-s1', '--jsonl']), 'reduce acme --jsonl').stdout.trim().split('\n').map((l) => JSON.parse(l) as { command: string; exit_status: string });
    expect(calls.map((c) => [c.command, c.exit_status])).toEqual([['ls -la', 'failed']]);

    // The OpenTelemetry SDK is not in the CLI: export says what to install, then works with it.
    const hostModules = join(prefix, 'lib/node_modules/@cordon/host/node_modules');
    expect(existsSync(join(hostModules, '@opentelemetry')) || existsSync(join(hostModules, 'vega'))).toBe(false);
    const receiver = await otlpReceiver();
    try {
      const refused = await cordon(['export', '--otlp', receiver.url, '--session', 'acme-s1']);
      expect(refused.exitCode, refused.stderr).toBe(2);
      expect(refused.stderr.replace(/\s+/g, ' ')).toContain('cordon plugins install otlp');
      ok(await cordon(['plugins', 'install', 'otlp']), 'cordon plugins install otlp');
      const exported = ok(await cordon(['export', '--otlp', receiver.url, '--session', 'acme-s1']), 'cordon export --otlp');
      expect(exported.stdout).toContain('exported 1 session(s): 2 spans');
      expect(receiver.paths).toContain('/v1/traces');
    } finally {
      await receiver.close();
    }

    ok(await cordon(['plugins', 'update']), 'cordon plugins update');
    ok(await cordon(['plugins', 'uninstall', '@cordon/codex']), 'cordon plugins uninstall');
    expect(ok(await cordon(['plugins']), 'cordon plugins').stdout).not.toContain('@cordon/codex');
    expect(existsSync(join(binDir, 'pcodx'))).toBe(false);
  }, 1_800_000);
});

// docs/ci/github-workflow.yml, its `run` steps as the runner runs them (bash -eo pipefail, the
// step's env, the expressions filled in) in a pull request's checkout, with this registry as the
// team's (CORDON_REGISTRY, and its token as CORDON_REGISTRY_TOKEN): the install and the check work
// as written. setup-node and checkout are played by this machine's Node and a clone.
describe('the sample GitHub workflow, as written', () => {
  it("installs cordon from the team's registry it points the @cordon scope at, and audits a pull request", async () => {
    // Published by the test above when it ran; a publish of a version already there is refused, harmlessly.
    for (const name of ['@cordon/plugin-api', '@cordon/host']) await registry.publish(tarballs.get(name)!);
    const root = join(work, 'workflow');
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    const prefix = join(root, 'prefix');
    // The runner's machine: its own home and npm config (where `npm config set` writes), a global
    // prefix on PATH; this machine's npm settings (nodedir for offline native builds) as npm's
    // global layer. No npm setting of this test's process leaks in.
    const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key) && !/^CORDON_/.test(key)));
    const env: NodeJS.ProcessEnv = {
      ...base,
      HOME: home,
      NPM_CONFIG_USERCONFIG: join(home, '.npmrc'),
      NPM_CONFIG_GLOBALCONFIG: join(process.env.HOME ?? '/root', '.npmrc'),
      npm_config_prefix: prefix,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      PATH: `${join(prefix, 'bin')}${delimiter}${process.env.PATH}`,
      CORDON_DATA_DIR: join(home, 'data'),
      CORDON_CONFIG_DIR: join(home, 'config'),
      CORDON_CACHE_DIR: join(home, 'cache'),
      GITHUB_ACTIONS: 'true',
      GIT_AUTHOR_NAME: 'Cordon Test',
      GIT_AUTHOR_EMAIL: 'test@cordon.invalid',
      GIT_COMMITTER_NAME: 'Cordon Test',
      GIT_COMMITTER_EMAIL: 'test@cordon.invalid',
    };
    // The pull request: main holds the policy, the branch changes a file it allows.
    const origin = makeRepo(join(root, 'origin'), { '.cordon.json': JSON.stringify({ allow: ['src/**'] }), 'src/a.js': 'a\n' }, env);
    const main = git(origin, ['rev-parse', '--abbrev-ref', 'HEAD'], env).trim();
    const checkout = join(root, 'checkout');
    git(root, ['clone', '-q', origin, checkout], env);
    git(checkout, ['checkout', '-qb', 'feature'], env);
    writeFiles(checkout, { 'src/a.js': 'changed\n' });
    git(checkout, ['commit', '-qam', 'change src/a.js'], env);

    const values = { 'vars.CORDON_REGISTRY': registry.url, 'secrets.CORDON_REGISTRY_TOKEN': registry.token, 'github.base_ref': main };
    const runs = workflowSteps(readFileSync(SAMPLE_WORKFLOW, 'utf8')).filter((step) => step.run !== undefined);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    let last: RunResult | undefined;
    for (const step of runs) {
      const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([key, value]) => [key, expandExpressions(String(value), values)]));
      const script = expandExpressions(step.run!, values);
      last = await runProcess(['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: checkout, env: { ...env, ...stepEnv }, timeoutMs: 900_000 });
      expect(last.exitCode, `${script}\n${last.stdout}\n${last.stderr}`).toBe(0);
    }
    // The scope went to the team's registry, through the runner's own npm config.
    expect(readFileSync(join(home, '.npmrc'), 'utf8')).toContain(`@cordon:registry=${registry.url}`);
    expect(lstatSync(join(prefix, 'bin', 'cordon')).isSymbolicLink()).toBe(true);
    // The check audited the pull request: accepted, no annotation.
    expect(last!.stdout).not.toContain('::error');
    // Without the variable the step stops at once, saying what to set, as an annotation.
    const scope = runs.find((step) => /npm config set @cordon:registry/.test(step.run!))!;
    const unset = await runProcess(['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c', expandExpressions(scope.run!, values)], { cwd: checkout, env: { ...env, CORDON_REGISTRY: '', CORDON_REGISTRY_TOKEN: '' } });
    expect([unset.exitCode, unset.stdout]).toEqual([2, '::error title=cordon::set the repository variable CORDON_REGISTRY to the npm registry your team publishes the @cordon packages to (docs/plugins.md)\n']);
  }, 1_200_000);
});

/** A local OTLP/HTTP receiver that accepts everything and records the request paths. */
async function otlpReceiver(): Promise<{ url: string; paths: string[]; close: () => Promise<void> }> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, paths, close: () => new Promise((done) => server.close(() => done())) };
}
