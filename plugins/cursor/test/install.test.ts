import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../test/support/cli.js';

// Cursor's sessionStart, which some Cursor builds reject: install-hooks says exactly what to take
// out where, and once the user took it out, leaves it out (install-hooks --check and doctor agree).
// Built CLI, ~/.cursor/hooks.json in a temp HOME.

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let hooksFile: string;
beforeEach(() => {
  box = makeSandbox('cordon-cursor-install-');
  linkPlugins(box.dataDir, ['cursor']);
  mkdirSync(join(box.home, '.cursor'));
  hooksFile = join(box.home, '.cursor/hooks.json');
  env = { ...box.env, PATH: `${dirname(process.execPath)}${delimiter}/usr/bin${delimiter}/bin` };
});
afterEach(() => box.cleanup());

const install = async (...args: string[]) => {
  const r = await runCordon(['install-hooks', '--agent', 'cursor', ...args, '--json'], { env, cwd: box.home });
  expect(r.exitCode, r.stderr).toBe(args.includes('--check') ? r.exitCode : 0);
  return { exitCode: r.exitCode, report: JSON.parse(r.stdout) as { agents: Array<{ changes: Array<{ summary: string }>; notes: string[] }> } };
};

describe('install-hooks --agent cursor and sessionStart', () => {
  it('the note names the file and the exact entry; an entry taken out stays out, and --check and doctor call the hooks current', async () => {
    const { report } = await install('--write');
    const hooks = JSON.parse(readFileSync(hooksFile, 'utf8')).hooks;
    const entry = hooks.sessionStart[0];
    expect(entry).toEqual({ command: hooks.preToolUse[0].command });
    expect(report.agents[0]!.notes).toContain(
      `some Cursor builds reject sessionStart ("Unknown hook type"); if Cursor reports that, delete the entry ${JSON.stringify(entry)} from the "sessionStart" list under "hooks" in ${hooksFile} (and the "sessionStart" key if the list is left empty): tool calls are still recorded, and install-hooks leaves sessionStart out from then on`,
    );
    // The user does what the note says.
    delete hooks.sessionStart;
    const edited = `${JSON.stringify({ version: 1, hooks }, null, 2)}\n`;
    writeFileSync(hooksFile, edited);
    const again = await install('--write');
    expect(again.report.agents[0]!.changes).toEqual([]);
    expect(readFileSync(hooksFile, 'utf8')).toBe(edited);
    expect(again.report.agents[0]!.notes.find((n) => n.startsWith('sessionStart left out'))).toBe(
      `sessionStart left out: ${hooksFile} holds cordon's other hooks but no cordon entry under "hooks"."sessionStart" (taken out for a Cursor build that rejects it); to put it back, add ${JSON.stringify(entry)} to the "sessionStart" list under "hooks" in that file`,
    );
    expect((await install('--check')).exitCode).toBe(0);
    const doctor = await runCordon(['doctor', '--json'], { env, cwd: box.home });
    expect(JSON.parse(doctor.stdout).findings.filter((f: { check: string }) => f.check === 'hooks:cursor:user')).toEqual([expect.objectContaining({ status: 'ok', message: 'hooks installed and current' })]);
    // Uninstall and a fresh install write it again.
    expect((await runCordon(['uninstall-hooks', '--agent', 'cursor', '--write'], { env, cwd: box.home })).exitCode).toBe(0);
    expect(existsSync(hooksFile) ? JSON.parse(readFileSync(hooksFile, 'utf8')).hooks?.sessionStart : undefined).toBeUndefined();
    await install('--write');
    expect(JSON.parse(readFileSync(hooksFile, 'utf8')).hooks.sessionStart).toEqual([entry]);
  });

  it("a file with the user's own hooks and no cordon, or cordon in some events only, gets sessionStart like every other event", async () => {
    writeFileSync(hooksFile, `${JSON.stringify({ version: 1, hooks: { afterFileEdit: [{ command: './format.sh' }] } }, null, 2)}\n`);
    await install('--write');
    const hooks = JSON.parse(readFileSync(hooksFile, 'utf8')).hooks;
    expect(Object.keys(hooks)).toEqual(['afterFileEdit', 'preToolUse', 'postToolUse', 'postToolUseFailure', 'sessionStart', 'sessionEnd']);
    delete hooks.sessionStart;
    delete hooks.sessionEnd;
    writeFileSync(hooksFile, `${JSON.stringify({ version: 1, hooks }, null, 2)}\n`);
    await install('--write');
    expect(Object.keys(JSON.parse(readFileSync(hooksFile, 'utf8')).hooks)).toEqual(['afterFileEdit', 'preToolUse', 'postToolUse', 'postToolUseFailure', 'sessionStart', 'sessionEnd']);
  });
});
