import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, REPO_ROOT, runCordon, runProcess, type Sandbox } from '../../../../test/support/cli.js';
import { git, makeRepo, writeFiles } from '../../../../test/support/git.js';
import { writeSyntheticBatch } from '../telemetry/analyze/synthetic.js';
import { GENERATED, generate } from '../../scripts/json-schemas.mjs';

// The JSON Schemas in packages/host/schemas/ against real outputs of the built CLI (validated with
// ajv, draft 2020-12), `.cordon.json`'s schema against the real reader (`cordon check --base`),
// and the rule that every `--json` output carrying `schema_version` has a schema.

const SCHEMAS = join(REPO_ROOT, 'packages/host/schemas');
const schemaFiles = readdirSync(SCHEMAS).filter((f) => f.endsWith('.schema.json')).sort();
const ajv = new Ajv2020({ strict: true, allErrors: true });
const validators = new Map(schemaFiles.map((f) => [f, ajv.compile(JSON.parse(readFileSync(join(SCHEMAS, f), 'utf8')))]));

/** Fails with ajv's errors when `value` does not match the named schema. */
function expectValid(file: string, value: unknown): void {
  const validate = validators.get(file);
  expect(validate, `no schema ${file}`).toBeDefined();
  const ok = validate!(value);
  expect(ok ? [] : validate!.errors, file).toEqual([]);
}

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-schemas-');
});
afterEach(() => sandbox.cleanup());

describe('the schemas themselves', () => {
  it('every schema is draft 2020-12 and compiles in ajv strict mode', () => {
    expect(schemaFiles).toEqual(['analyze-compare.schema.json', 'analyze.schema.json', 'cordon-settings.schema.json', 'doctor.schema.json', 'top.schema.json']);
    for (const f of schemaFiles) expect(JSON.parse(readFileSync(join(SCHEMAS, f), 'utf8')).$schema, f).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('the generated schemas are what the TypeScript types of the outputs give today', () => {
    for (const entry of GENERATED as { file: string }[]) {
      expect(generate(entry), `${entry.file} is stale: run npm run schemas -w @cordon/host`).toBe(readFileSync(join(SCHEMAS, entry.file), 'utf8'));
    }
  }, 60_000);

  it('the package ships them: npm pack lists every schema', async () => {
    const r = await runProcess(['npm', 'pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: join(REPO_ROOT, 'packages/host'), env: sandbox.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const [info] = JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>;
    expect(info!.files.map((f) => f.path).filter((p) => p.startsWith('schemas/')).sort()).toEqual(schemaFiles.map((f) => `schemas/${f}`));
  }, 60_000);
});

describe('every --json output that carries schema_version has a schema', () => {
  /**
   * Source files that build an object with `schema_version`, and what each is: a `--json` output
   * (then the schema that describes it) or a file that is not a command's output (then why).
   */
  const PRODUCERS: Readonly<Record<string, string>> = {
    'packages/host/src/commands/analyze.ts': 'analyze-compare.schema.json',
    'packages/host/src/telemetry/analyze/index.ts': 'analyze.schema.json',
    'packages/host/src/doctor/report.ts': 'doctor.schema.json',
    'packages/host/src/top/snapshot.ts': 'top.schema.json',
    'packages/host/src/envelope/arm.ts': 'not an output: .cordon/config.json and snapshot.json, state files checked on every load',
    'packages/host/src/envelope/state/store.ts': 'not an output: .cordon/state.json, checked on every load',
    'plugins/codex/src/pcodx/model-turn/usage.ts': 'not an output: a line of the pcodx usage log (docs/pcodx.md)',
  };

  /** Every .ts file under `dir`. */
  function sources(dir: string): string[] {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => join(e.parentPath, e.name));
  }

  it('finds every producer in the sources, and each is mapped to a schema or a reason', () => {
    const roots = [join(REPO_ROOT, 'packages/host/src'), ...readdirSync(join(REPO_ROOT, 'plugins')).map((p) => join(REPO_ROOT, 'plugins', p, 'src'))];
    const found = roots
      .flatMap((root) => { try { return sources(root); } catch { return []; } })
      .filter((file) => /\bschema_version:\s*[A-Z0-9_]+\s*[,}]/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(REPO_ROOT, file))
      .sort();
    expect(found).toEqual(Object.keys(PRODUCERS).sort());
    for (const [file, what] of Object.entries(PRODUCERS)) {
      if (what.startsWith('not an output')) continue;
      expect(schemaFiles, file).toContain(what);
    }
  });
});

describe('real outputs of the built CLI', () => {
  it('cordon doctor --json, healthy and with a problem', async () => {
    linkPlugins(sandbox.dataDir, ['claude-code']);
    let r = await runCordon(['doctor', '--json'], { env: sandbox.env, cwd: sandbox.home });
    expectValid('doctor.schema.json', JSON.parse(r.stdout));
    // A hook command that no longer resolves: a problem finding with its fix.
    writeFiles(sandbox.home, { '.claude/settings.json': JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: '/nonexistent/node /nonexistent/run.cjs hook --agent claude-code' }] }] } }) });
    r = await runCordon(['doctor', '--json'], { env: sandbox.env, cwd: sandbox.home });
    expect(r.exitCode, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as { findings: { status: string; fix?: string }[] };
    expect(report.findings.some((f) => f.status === 'problem' && f.fix)).toBe(true);
    expectValid('doctor.schema.json', report);
  }, 60_000);

  it('cordon analyze --json and --compare --json', async () => {
    writeSyntheticBatch(sandbox.dataDir);
    const one = await runCordon(['analyze', '--all', '--json'], { env: sandbox.env });
    expect(one.exitCode, one.stderr).toBe(0);
    const report = JSON.parse(one.stdout);
    expect(report.schema_version).toBe(1);
    expectValid('analyze.schema.json', report);
    const a = join(sandbox.home, 'a.json');
    writeFileSync(a, one.stdout);
    const both = await runCordon(['analyze', '--compare', a, a, '--json'], { env: sandbox.env });
    expect(both.exitCode, both.stderr).toBe(0);
    expectValid('analyze-compare.schema.json', JSON.parse(both.stdout));
  }, 60_000);

  it('cordon top --json with no session (sessions with the real hook and sampler: test/top/cli.test.ts)', async () => {
    const r = await runCordon(['top', '--json'], { env: sandbox.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expectValid('top.schema.json', JSON.parse(r.stdout));
  }, 60_000);

  it('a report missing a field or with an extra one does not validate', async () => {
    writeSyntheticBatch(sandbox.dataDir);
    const report = JSON.parse((await runCordon(['analyze', '--all', '--json'], { env: sandbox.env })).stdout);
    const validate = validators.get('analyze.schema.json')!;
    expect(validate({ ...report, surprise: 1 })).toBe(false);
    const { pooled: _pooled, ...withoutPooled } = report;
    expect(validate(withoutPooled)).toBe(false);
  }, 60_000);
});

describe('.cordon.json: the schema and the reader of `cordon check --base` agree', () => {
  /** `cordon check --base` over a one-commit range in a repository holding `policy` as `.cordon.json`. */
  async function checkWith(policy: unknown): Promise<{ exitCode: number | null; stderr: string }> {
    const repo = makeRepo(sandbox.dir(`repo-${Math.random().toString(36).slice(2)}`), { 'src/app.py': 'a\n', '.cordon.json': JSON.stringify(policy) }, sandbox.env);
    const base = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    writeFiles(repo, { 'src/app.py': 'a\nb\n' });
    git(repo, ['commit', '-qam', 'change'], sandbox.env);
    return runCordon(['check', '--base', base], { env: sandbox.env, cwd: repo });
  }

  const valid: [string, unknown][] = [
    ['every key', { $schema: './node_modules/@cordon/host/schemas/cordon-settings.schema.json', '//': 'policy for CI', allow: ['src/**'], deny: ['src/secret/**'], 'allow-ignored': ['build/**'], 'max-files': 5, 'max-added-lines': 10, 'max-deleted-lines': 0, 'max-working-bytes': 1000, 'max-binary-files': 0, 'allow-commits': true, verify: ['true'], 'verify-timeout': 1.5, 'verify-output-cap': 100, 'max-attempts': 2 }],
    ['only allow', { allow: ['**'] }],
  ];
  const invalid: [string, unknown, RegExp][] = [
    ['an unknown key', { allow: ['src/**'], 'max-file': 3 }, /unknown key "max-file"/],
    ['a negative limit', { allow: ['src/**'], 'max-files': -1 }, /"max-files": expected an integer from 0 to 9007199254740991 but received: -1/],
    ['a fractional limit', { allow: ['src/**'], 'max-added-lines': 1.5 }, /"max-added-lines": expected an integer from 0 to 9007199254740991 but received: 1.5/],
    ['a string for a list', { allow: 'src/**' }, /"allow" must be a list of strings/],
    ['an absolute glob', { allow: ['/etc/**'] }, /"allow" entry "\/etc\/\*\*": a glob must be relative/],
    ['a .. segment', { allow: ['src/../x'] }, /"allow" entry "src\/\.\.\/x": a glob cannot have a "\.\." path segment/],
    ['nine verifiers', { allow: ['src/**'], verify: Array(9).fill('true') }, /too many verify commands: 9 > 8/],
    ['a zero timeout', { allow: ['src/**'], 'verify-timeout': 0 }, /"verify-timeout": expected a number of seconds greater than 0 and at most 604800 but received: 0/],
    ['a timeout over a week', { allow: ['src/**'], 'verify-timeout': 604801 }, /"verify-timeout": expected a number of seconds greater than 0 and at most 604800 but received: 604801/],
    ['zero attempts', { allow: ['src/**'], 'max-attempts': 0 }, /"max-attempts": expected an integer from 1 to 9007199254740991 but received: 0/],
    ['a non-object', ['src/**'], /must hold a JSON object/],
  ];

  it.each(valid)('%s: valid for the schema, accepted by the CLI', async (_name, policy) => {
    expect(validators.get('cordon-settings.schema.json')!(policy), JSON.stringify(validators.get('cordon-settings.schema.json')!.errors)).toBe(true);
    const r = await checkWith(policy);
    expect(r.exitCode, r.stderr).toBe(0);
  }, 60_000);

  it.each(invalid)('%s: invalid for the schema, refused by the CLI (exit 2) naming the key', async (_name, policy, message) => {
    expect(validators.get('cordon-settings.schema.json')!(policy)).toBe(false);
    const r = await checkWith(policy);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr.replace(/\s+/g, ' ')).toMatch(message);
  }, 60_000);
});
