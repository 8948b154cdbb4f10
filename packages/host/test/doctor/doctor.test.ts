import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requireAgent } from '../../../../test/support/agents.js';
import { CORDON_BIN, linkPluginRoots, linkPlugins, makeSandbox, REPO_ROOT, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { brokenCommand, hookCommandsIn } from '../../src/install-hooks/state.js';
import { ago } from '../../src/doctor/activity.js';
import type { DoctorReport } from '../../src/doctor/index.js';
import { pluginFindings } from '../../src/doctor/runtime.js';
import type { CordonHost } from '../../src/bus/host.js';
import { CordonPluginError } from '../../src/errors/index.js';
import { writeSyntheticBatch } from '../telemetry/analyze/synthetic.js';
import { nonSnakeKeys } from '../../../../test/support/json-keys.js';

// `cordon doctor` on configs the real `cordon install-hooks` wrote: healthy, a stale path, a Codex
// whose trust no longer matches, a log with a fresh error (with escape sequences) and markers.

let box: Sandbox;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  box = makeSandbox('cordon-doctor-');
  linkPlugins(box.dataDir, ['claude-code', 'codex', 'gemini']);
  mkdirSync(join(box.home, '.claude'), { recursive: true });
  env = { ...box.env, PATH: `${dirname(process.execPath)}${delimiter}/usr/bin${delimiter}/bin` };
});
afterEach(() => box.cleanup());

async function doctor(e = env): Promise<{ exitCode: number | null; report: DoctorReport; text: string }> {
  const json = await runCordon(['doctor', '--json'], { env: e, cwd: box.home });
  const text = await runCordon(['doctor'], { env: e, cwd: box.home });
  expect(text.exitCode).toBe(json.exitCode);
  const report = JSON.parse(json.stdout) as DoctorReport;
  // Every report these states give is held to the snake_case rule, the rarer findings' details too.
  expect(nonSnakeKeys(report)).toEqual([]);
  return { exitCode: json.exitCode, report, text: text.stdout };
}

const find = (r: DoctorReport, check: string) => r.findings.filter((f) => f.check === check);

describe('cordon doctor', () => {
  it('healthy: hooks installed by install-hooks are current, exit 0; --check agrees', async () => {
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env })).exitCode).toBe(0);
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--check'], { env })).exitCode).toBe(0);
    const { exitCode, report, text } = await doctor();
    expect(exitCode, text).toBe(0);
    expect(report.ok).toBe(true);
    expect(find(report, 'hooks:claude-code:user')).toEqual([expect.objectContaining({ status: 'ok', message: 'hooks installed and current' })]);
    expect(find(report, 'sqlite')[0]!.status).toBe('ok');
    expect(find(report, 'plugins')[0]!.message).toContain('@cordon/claude-code@');
    // cordon itself is oclif's root plugin, not one the user installed.
    expect(find(report, 'plugins')[0]!.message).not.toContain('@cordon/host');
    expect((find(report, 'plugins')[0]!.details as { packages: Array<{ name: string }> }).packages.map((p) => p.name)).not.toContain('@cordon/host');
    expect(find(report, 'activity:claude-code')[0]!.message).toContain('no hook event from claude-code recorded yet');
    expect(text).toMatch(/^no problems found$/m);
  });

  it('an agent installed here without the hooks is a problem with its fix', async () => {
    const { exitCode, report } = await doctor();
    expect(exitCode).toBe(1);
    expect(find(report, 'hooks:claude-code:user')).toEqual([
      expect.objectContaining({ status: 'problem', message: `claude-code is in use here (directory ${join(box.home, '.claude')} exists) but cordon's hooks are missing from its config`, fix: 'cordon install-hooks --agent claude-code --write' }),
    ]);
    // What was looked for and not found, as install-hooks --all says it (install-hooks/detect.ts).
    expect(find(report, 'hooks:gemini:user')).toEqual([
      expect.objectContaining({ status: 'info', message: `gemini not found here (no \`gemini\` command on PATH, no directory ${join(box.home, '.gemini')}) and no cordon hooks installed` }),
    ]);
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--check'], { env })).exitCode).toBe(1);
  });

  it('a stale path: the command in the config runs a cordon that moved', async () => {
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env })).exitCode).toBe(0);
    const settings = join(box.home, '.claude/settings.json');
    writeFileSync(settings, readFileSync(settings, 'utf8').split(CORDON_BIN).join('/opt/gone/cordon/bin/run.cjs'));
    const { exitCode, report } = await doctor();
    expect(exitCode).toBe(1);
    // One row: the command that cannot start and the stale config are one check with one fix.
    const found = find(report, 'hooks:claude-code:user');
    expect(found).toEqual([expect.objectContaining({ status: 'problem', fix: 'cordon install-hooks --agent claude-code --write' })]);
    expect(found[0]!.message).toBe(
      `the hook command in ${settings} runs /opt/gone/cordon/bin/run.cjs, which does not exist (cordon moved or was uninstalled); cordon's hooks are installed but stale: an install would change ${settings}`,
    );
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--check'], { env })).exitCode).toBe(1);
    // The fix it names works.
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env })).exitCode).toBe(0);
    expect((await doctor()).exitCode).toBe(0);
  });

  it('one row per check: Hermes without recorded consent is one !! row (not an ok row above it), its fix the one that adds --accept', async () => {
    linkPlugins(box.dataDir, ['claude-code', 'codex', 'gemini', 'hermes']);
    const withHermes = { ...env, HERMES_HOME: join(box.home, '.hermes') };
    expect((await runCordon(['install-hooks', '--agent', 'hermes', '--write'], { env: withHermes })).exitCode).toBe(0);
    const { exitCode, report, text } = await doctor(withHermes);
    expect(exitCode).toBe(1);
    expect(find(report, 'hooks:hermes:user')).toEqual([
      expect.objectContaining({ status: 'problem', message: expect.stringMatching(/^Hermes has not recorded consent/), fix: 'cordon install-hooks --agent hermes --write --accept' }),
    ]);
    expect(text.split('\n').filter((l) => /^\S+ +hooks:hermes:user /.test(l))).toEqual([expect.stringMatching(/^!! /)]);
    // Every check of the whole report is one row.
    const checks = report.findings.map((f) => f.check);
    expect(checks).toEqual([...new Set(checks)]);
    // With consent the one row is ok.
    expect((await runCordon(['install-hooks', '--agent', 'hermes', '--write', '--accept'], { env: withHermes })).exitCode).toBe(0);
    expect(find((await doctor(withHermes)).report, 'hooks:hermes:user')).toEqual([expect.objectContaining({ status: 'ok' })]);
  });

  it('Codex: hooks whose trust entries no longer match are untrusted (Codex skips them silently), as the real codex reports', async () => {
    const codex = requireAgent('codex');
    const withCodex = { ...env, PATH: `${dirname(codex.bin)}${delimiter}${env.PATH}`, CODEX_HOME: join(box.home, '.codex') };
    mkdirSync(join(box.home, '.codex'), { recursive: true });
    const install = await runCordon(['install-hooks', '--agent', 'codex', '--write'], { env: withCodex });
    expect(install.exitCode, install.stderr).toBe(0);
    const healthy = await doctor(withCodex);
    expect(find(healthy.report, 'hooks:codex:user').map((f) => f.status)).not.toContain('problem');
    const config = join(box.home, '.codex/config.toml');
    writeFileSync(config, readFileSync(config, 'utf8').replace(/trusted_hash = "sha256:[0-9a-f]{8}/g, 'trusted_hash = "sha256:00000000'));
    const { exitCode, report } = await doctor(withCodex);
    expect(exitCode).toBe(1);
    const problems = find(report, 'hooks:codex:user').filter((f) => f.status === 'problem');
    expect(problems.map((f) => f.message).join('\n')).toMatch(/trust/);
    expect(problems[0]!.fix).toBe('cordon install-hooks --agent codex --write');
  });

  it('Codex installed without a codex binary: the row says trust was not confirmed and why, as information (install exits 0 too)', async () => {
    const codexEnv = { ...env, CODEX_HOME: join(box.home, '.codex') };
    mkdirSync(join(box.home, '.codex'), { recursive: true });
    const install = await runCordon(['install-hooks', '--agent', 'codex', '--write'], { env: codexEnv });
    expect([install.exitCode, install.stdout + install.stderr]).toEqual([0, expect.stringContaining('trust NOT confirmed: codex is not on PATH')]);
    const { exitCode, report, text } = await doctor(codexEnv);
    expect(exitCode, text).toBe(0);
    expect(find(report, 'hooks:codex:user')).toEqual([
      expect.objectContaining({ status: 'info', message: expect.stringMatching(/^hooks installed and current, but trust NOT confirmed: codex is not on PATH, so cordon could not ask Codex/), details: expect.objectContaining({ unverified: true }) }),
    ]);
    expect(text).toMatch(/^-- hooks:codex:user +hooks installed and current, but trust NOT confirmed/m);
  });

  it("Codex: a hooks.json emptied by hand is 'missing' (the trust entries left in config.toml are leftovers), not 'stale'; a changed command is stale", async () => {
    const codexEnv = { ...env, CODEX_HOME: join(box.home, '.codex') };
    mkdirSync(join(box.home, '.codex'), { recursive: true });
    expect((await runCordon(['install-hooks', '--agent', 'codex', '--write'], { env: codexEnv })).exitCode).toBe(0);
    const hooksJson = join(box.home, '.codex/hooks.json');
    const installed = readFileSync(hooksJson, 'utf8');
    writeFileSync(hooksJson, '{"hooks":{}}\n');
    const { exitCode, report } = await doctor(codexEnv);
    expect(exitCode).toBe(1);
    const rows = find(report, 'hooks:codex:user');
    expect(rows).toEqual([expect.objectContaining({ status: 'problem', fix: 'cordon install-hooks --agent codex --write', details: { missing: true } })]);
    expect(rows[0]!.message).toMatch(/^codex is in use here .* but cordon's hooks are missing from its config \(only leftover entries of them remain, in .*config\.toml; the install tidies them\)$/);
    expect(rows[0]!.message).not.toContain('stale');
    // One of cordon's commands still there but changed: stale.
    writeFileSync(hooksJson, installed.replace(/--agent codex/, '--agent codex '));
    const stale = find((await doctor(codexEnv)).report, 'hooks:codex:user');
    expect(stale.map((f) => f.message).join('\n')).toContain("cordon's hooks are installed but stale");
  });

  it('project scope: the portable `cordon hook` is a problem while no cordon is on PATH, fine once one is', async () => {
    const project = box.dir('project');
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--scope', 'project', '--write'], { env, cwd: project })).exitCode).toBe(0);
    const run = async (e: NodeJS.ProcessEnv) => JSON.parse((await runCordon(['doctor', '--json'], { env: e, cwd: project })).stdout) as DoctorReport;
    const missing = find(await run(env), 'hooks:claude-code:project');
    expect(missing[0]).toMatchObject({ status: 'problem', message: `the hook command in ${join(project, '.claude/settings.json')} runs \`cordon\`: not found on PATH` });
    const bin = box.dir('bin');
    writeFileSync(join(bin, 'cordon'), `#!/bin/sh\nexec '${process.execPath}' '${CORDON_BIN}' "$@"\n`, { mode: 0o755 });
    const found = find(await run({ ...env, PATH: `${bin}${delimiter}${env.PATH}` }), 'hooks:claude-code:project');
    expect(found).toEqual([expect.objectContaining({ status: 'ok', message: 'hooks installed and current' })]);
  });

  it('the log: its newest error is shown escaped with the log path; the last hook event per agent', async () => {
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env })).exitCode).toBe(0);
    mkdirSync(join(box.dataDir, 'logs'), { recursive: true });
    const log = join(box.dataDir, 'logs/cordon.log');
    const now = new Date().toISOString();
    writeFileSync(log, `${JSON.stringify({ t: now, level: 'warn', scope: 'hook', message: 'older warning' })}\n{torn line\n${JSON.stringify({ t: now, level: 'error', scope: 'hook', message: 'boom \u001b]52;c;eA==\u0007' })}\n`);
    mkdirSync(join(box.dataDir, 'runs/s-1'), { recursive: true });
    writeFileSync(join(box.dataDir, 'runs/s-1/markers.jsonl'), `${JSON.stringify({ v: 1, event: 'tool_end', ts: Date.now() - 3 * 3600_000, session_id: 's-1', agent: 'claude-code', tool_name: 'Bash' })}\n`);
    const { exitCode, report, text } = await doctor();
    expect(exitCode).toBe(1);
    const [logged] = find(report, 'log');
    expect(logged).toMatchObject({ status: 'problem', details: { path: log } });
    expect(logged!.message).toContain('boom');
    expect(text).not.toContain('\u001b');
    expect(text).toContain('\\u001b]52');
    expect(find(report, 'activity:claude-code')[0]!.message).toBe('last hook event: tool_end (Bash) 3 h ago, session s-1');
  });

  // Found by a hostile-input probe: a relative CLAUDE_CONFIG_DIR or GEMINI_CLI_HOME, which names
  // no one file, was reported as "cannot read the config: …" with the fix "repair or move the
  // file it names", though it names no file and the fix is the variable.
  it('a config directory variable that is not an absolute path is reported with the variable as the fix, not a file', async () => {
    const { exitCode, report } = await doctor({ ...env, CLAUDE_CONFIG_DIR: 'rel/claude', GEMINI_CLI_HOME: '~' });
    expect(exitCode).toBe(1);
    for (const [check, text] of [
      ['hooks:claude-code:user', 'CLAUDE_CONFIG_DIR is "rel/claude", not an absolute path;'],
      ['hooks:gemini:user', 'GEMINI_CLI_HOME is "~", not an absolute path (Gemini CLI does not expand "~" in it);'],
    ] as const) {
      const [row] = find(report, check);
      expect(row).toEqual(expect.objectContaining({ status: 'problem', fix: 'correct that setting in the environment the agent and cordon start in, as the message says, then run doctor again' }));
      expect(row!.message.startsWith(`cannot locate the config: ${text}`)).toBe(true);
    }
  });

  it('a config that does not parse is reported in doctor\'s words (it edits nothing); install-hooks keeps its own', async () => {
    const settings = join(box.home, '.claude/settings.json');
    writeFileSync(settings, '{ bad json');
    const { exitCode, report, text } = await doctor();
    expect(exitCode).toBe(1);
    expect(find(report, 'hooks:claude-code:user')).toEqual([
      expect.objectContaining({
        status: 'problem',
        message: `cannot read the config: ${settings} is not valid JSON (invalid symbol at line 1, column 3)`,
        fix: 'repair or move the file it names (`cordon install-hooks` will not edit it until then), then run doctor again',
      }),
    ]);
    expect(text).not.toContain('refusing to edit');
    const install = await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env });
    expect(install.exitCode).toBe(2);
    expect(install.stderr).toContain(`${settings} is not valid JSON (invalid symbol at line 1, column 3); refusing to edit it, the file is left untouched`);
    expect(readFileSync(settings, 'utf8')).toBe('{ bad json');
  });

  it("the log row passes over control run's routine 'unguarded' warnings (the control row says why) and shows the warning before them", async () => {
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env })).exitCode).toBe(0);
    mkdirSync(join(box.dataDir, 'logs'), { recursive: true });
    const log = join(box.dataDir, 'logs/cordon.log');
    const now = new Date().toISOString();
    const unguarded = JSON.stringify({ t: now, level: 'warn', scope: 'host', message: 'control run: unguarded (no enforce backend answered)', argv: ['true'] });
    writeFileSync(log, `${JSON.stringify({ t: now, level: 'warn', scope: 'hook', message: 'a real warning' })}\n${unguarded}\n${unguarded}\n`);
    const [shown] = find((await doctor()).report, 'log');
    expect(shown!.message).toMatch(/^last warn .*: a real warning \[hook\]/);
    writeFileSync(log, `${unguarded}\n${unguarded}\n`);
    const { exitCode, report } = await doctor();
    expect(exitCode).toBe(0);
    expect(find(report, 'log')[0]).toMatchObject({ status: 'ok', message: `nothing to look into in the last 2 lines of ${log} (2 routine "control run: unguarded (no enforce backend answered)" warnings, which the control row explains)` });
  });

  it('another agent found here without the hooks is information once cordon is hooked into one', async () => {
    mkdirSync(join(box.home, '.gemini'), { recursive: true });
    const before = await doctor();
    expect(before.exitCode).toBe(1);
    expect(find(before.report, 'hooks:gemini:user')).toEqual([expect.objectContaining({ status: 'problem', message: expect.stringMatching(/^gemini is in use here/) })]);
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env })).exitCode).toBe(0);
    const after = await doctor();
    expect(after.exitCode, after.text).toBe(0);
    expect(find(after.report, 'hooks:gemini:user')).toEqual([
      expect.objectContaining({ status: 'info', message: expect.stringMatching(/^gemini is in use here .*\(cordon sees none of its tool calls\)$/), fix: 'cordon install-hooks --agent gemini --write' }),
    ]);
    // The verdict under that note's `fix:` line says there is one, not a bare "no problems found".
    expect(after.text.trimEnd().split('\n').at(-1)).toBe('no problems found; 1 note (--) above suggests a fix you may want');
  });

  it('hooks removed on purpose: uninstall-hooks records the choice, doctor says so and exits 0, --all leaves the agent out, install-hooks takes it back', async () => {
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env })).exitCode).toBe(0);
    const un = await runCordon(['uninstall-hooks', '--agent', 'claude-code', '--write'], { env });
    expect(un.exitCode, un.stderr).toBe(0);
    expect(un.stdout).toContain("note: recorded that claude-code's hooks were removed on purpose");
    const choice = join(box.configDir, 'hooks-removed.json');
    expect(statSync(choice).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(readFileSync(choice, 'utf8')).agents)).toEqual(['claude-code']);
    // ~/.claude is still there: before, this was a problem (exit 1) with no way to say "no hooks".
    const { exitCode, report, text } = await doctor();
    expect(exitCode, text).toBe(0);
    expect(find(report, 'hooks:claude-code:user')).toEqual([
      expect.objectContaining({ status: 'info', message: expect.stringMatching(/^hooks removed on purpose \(`cordon uninstall-hooks`, \d{4}-\d\d-\d\dT[^)]+\); `cordon install-hooks --agent claude-code --write` puts them back$/), details: { removed_on_purpose: true, removed_at: expect.stringMatching(/^\d{4}-/) } }),
    ]);
    expect(find(report, 'activity:claude-code')).toEqual([]);
    // --all does not undo the choice; it says why it left the agent out.
    const all = await runCordon(['install-hooks', '--all', '--json'], { env });
    expect(JSON.parse(all.stdout).passed_over).toContainEqual({ agent: 'claude-code', reason: expect.stringMatching(/^hooks removed on purpose with `cordon uninstall-hooks`/) });
    // A dry run changes nothing; --write takes the choice back.
    expect((await runCordon(['install-hooks', '--agent', 'claude-code'], { env })).exitCode).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(choice, 'utf8')).agents)).toEqual(['claude-code']);
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env })).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(choice, 'utf8')).agents).toEqual({});
    const back = await doctor();
    expect(find(back.report, 'hooks:claude-code:user')).toEqual([expect.objectContaining({ status: 'ok', message: 'hooks installed and current' })]);
    // Removing them by hand (no uninstall-hooks) is still a problem: only the command records the choice.
    writeFileSync(join(box.home, '.claude/settings.json'), '{}\n');
    expect((await doctor()).exitCode).toBe(1);
  });

  it('the telemetry store: no row while there is none (none is made), ok once reduce made it, a problem in reduce\'s words when it is garbage', async () => {
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env })).exitCode).toBe(0);
    const db = join(box.dataDir, 'telemetry.sqlite3');
    expect(find((await doctor()).report, 'telemetry-db')).toEqual([]);
    expect(existsSync(db)).toBe(false);
    writeSyntheticBatch(box.dataDir);
    expect((await runCordon(['reduce', '--all'], { env })).exitCode).toBe(0);
    const healthy = await doctor();
    expect(healthy.exitCode, healthy.text).toBe(0);
    expect(find(healthy.report, 'telemetry-db')).toEqual([expect.objectContaining({ status: 'ok', message: `${db}: cordon's telemetry database, integrity quick check ok` })]);
    writeFileSync(db, 'this is not a database, just some bytes that replaced it');
    const reduced = await runCordon(['reduce', '--all'], { env });
    expect(reduced.stderr).toContain('CORDON_DB_ERROR');
    const garbage = await doctor();
    expect(garbage.exitCode).toBe(1);
    const [row] = find(garbage.report, 'telemetry-db');
    expect(row).toMatchObject({ status: 'problem', fix: expect.stringContaining(`move ${db} away`) });
    // The same words reduce refuses it with.
    expect(row!.message).toContain(`${db} is not an SQLite database`);
    expect(reduced.stderr.replace(/\s+/g, ' ')).toContain(`${db} is not an SQLite database`);
    expect(find(garbage.report, 'sqlite')[0]!.status).toBe('ok');
    // A file with SQLite's header whose pages are garbage: SQLite's own complaint.
    writeFileSync(db, Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(4096 - 16, 0x5a)]));
    expect(find((await doctor()).report, 'telemetry-db')[0]).toMatchObject({ status: 'problem', message: expect.stringMatching(/^cannot open telemetry database .*(not a database|malformed)/) });
  });

  it('the log: a failure of a plugin since removed is a note, not a problem; a current error stays one, its fix saying how it stops counting', async () => {
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env })).exitCode).toBe(0);
    // A linked checkout never built: its register hook's file does not exist, so every command logs the failure.
    const broken = join(box.home, 'broken-plugin');
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, 'package.json'), JSON.stringify({ name: '@acme/cordon-plugin-broken', version: '0.1.0', type: 'module', oclif: { hooks: { 'cordon:register': './dist/index.js' } } }));
    const ours = ['claude-code', 'codex', 'gemini'].map((name) => ({ name: `@cordon/${name}`, root: join(REPO_ROOT, 'plugins', name) }));
    linkPluginRoots(box.dataDir, [...ours, { name: '@acme/cordon-plugin-broken', root: broken }]);
    const whileLinked = await doctor();
    expect(whileLinked.exitCode).toBe(1);
    expect(find(whileLinked.report, 'log')[0]).toMatchObject({ status: 'problem', message: expect.stringContaining('plugin "@acme/cordon-plugin-broken" failed in hook "register"') });
    expect(find(whileLinked.report, 'log')[0]!.fix).toContain('stops counting a day after it was logged, or at once when you move');
    // Unlinked: the logged failures are about a plugin no longer there.
    linkPluginRoots(box.dataDir, ours);
    const after = await doctor();
    expect(after.exitCode, after.text).toBe(0);
    const [row] = find(after.report, 'log');
    expect(row).toMatchObject({ status: 'ok', details: { from_removed_plugin: expect.any(Object) } });
    expect(row!.message).toMatch(/^no current warning or error in the last \d+ lines of .*cordon\.log \(last error \d+ s ago from a plugin no longer installed \(@acme\/cordon-plugin-broken\), \d+ such entries: plugin "@acme\/cordon-plugin-broken" failed in hook "register"/);
    // A genuine error logged after them is still the problem.
    appendFileSync(join(box.dataDir, 'logs/cordon.log'), `${JSON.stringify({ t: new Date().toISOString(), level: 'error', scope: 'hook', message: 'disk full' })}\n`);
    const genuine = find((await doctor()).report, 'log')[0]!;
    expect(genuine).toMatchObject({ status: 'problem', message: expect.stringMatching(/^last error \d+ s ago: disk full \[hook\]/) });
  });

  it('a log that is not a regular file is a problem, not a crash', async () => {
    mkdirSync(join(box.dataDir, 'logs/cordon.log'), { recursive: true });
    const { report } = await doctor();
    expect(find(report, 'log')[0]).toMatchObject({ status: 'problem' });
  });

  // Found by a hostile-input probe: a file where the logs directory belongs was told to check
  // permissions, which cannot mend it.
  it('a file where the logs directory belongs: the fix is to move it away, not permissions', async () => {
    writeFileSync(join(box.dataDir, 'logs'), 'x\n');
    const row = find((await doctor()).report, 'log')[0]!;
    expect(row).toMatchObject({ status: 'problem', message: `cannot read the log ${join(box.dataDir, 'logs/cordon.log')}: ${join(box.dataDir, 'logs')} is not a directory`, fix: `move ${join(box.dataDir, 'logs')} away; cordon makes the directory and a new log` });
  });
});

describe('doctor helpers', () => {
  it('lists the plugins and their failures by name, whatever order oclif loaded them in', () => {
    const failures = [new CordonPluginError('zeta', 'register', new Error('z')), new CordonPluginError('alpha', 'apply', new Error('a'))];
    const host = { applied: ['alpha', 'beta'], failures } as unknown as CordonHost;
    const packages = [{ name: '@cordon/codex', version: '1' }, { name: '@oclif/plugin-help', version: '6' }, { name: '@cordon/aider', version: '2' }, { name: '@cordon/host', version: '3' }];
    const findings = pluginFindings(host, packages);
    expect(findings.map((f) => f.message)).toEqual(['@cordon/aider@2, @cordon/codex@1, @cordon/host@3', 'plugin "alpha" failed in hook "apply": a', 'plugin "zeta" failed in hook "register": z']);
    expect((findings[0]!.details as { packages: Array<{ name: string }> }).packages.map((p) => p.name)).toEqual(['@cordon/aider', '@cordon/codex', '@cordon/host', '@oclif/plugin-help']);
    // The same whatever the order given.
    expect(pluginFindings(host, [...packages].reverse())).toEqual(findings);
  });

  it('finds the hook commands of an agent in each config format', () => {
    expect(hookCommandsIn('{"command": "\'/usr/bin/node\' \'/x/run.cjs\' hook --agent codex"}', 'codex')).toEqual(["'/usr/bin/node' '/x/run.cjs' hook --agent codex"]);
    expect(hookCommandsIn("command: /usr/local/bin/cordon hook --agent hermes\n", 'hermes')).toEqual(['/usr/local/bin/cordon hook --agent hermes']);
    expect(hookCommandsIn('{"command": "cordon hook --agent gemini-x"}', 'gemini')).toEqual([]);
  });

  it('says why a command cannot start', () => {
    const path = `${dirname(process.execPath)}`;
    expect(brokenCommand(`'${process.execPath}' '${CORDON_BIN}' hook --agent codex`, { PATH: path })).toBeUndefined();
    expect(brokenCommand(`/nope/node x.cjs hook`, { PATH: path })).toBe('runs /nope/node: no such file');
    expect(brokenCommand(`'${path}' x.cjs hook`, { PATH: path })).toBe(`runs ${path}: is a directory`);
    expect(brokenCommand(`cordon-missing hook --agent codex`, { PATH: path })).toBe('runs `cordon-missing`: not found on PATH');
    expect(brokenCommand(`'${process.execPath}' /gone/run.cjs hook`, { PATH: path })).toBe('runs /gone/run.cjs, which does not exist (cordon moved or was uninstalled)');
  });

  it('says how long ago', () => {
    expect(ago(0, 30_000)).toBe('30 s ago');
    expect(ago(0, 600_000)).toBe('10 min ago');
    expect(ago(0, 5 * 3600_000)).toBe('5 h ago');
    expect(ago(0, 3 * 86_400_000)).toBe('3 days ago');
  });
});
