import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { linkPlugins, makeSandbox, runCordon, type RunResult, type Sandbox } from '../../../../test/support/cli.js';

/** The five agents with hook installers. */
export const HOOK_AGENTS = ['claude-code', 'codex', 'gemini', 'cursor', 'hermes'] as const;

/** A sandbox for install-hooks tests: a home, a project dir, the five plugins linked, and no agent on PATH. */
export interface HooksSandbox {
  readonly sandbox: Sandbox;
  readonly home: string;
  readonly project: string;
  /** The sandbox env with PATH holding only node and the system dirs (`--all` must rely on config homes). */
  readonly env: NodeJS.ProcessEnv;
}

/** Makes a {@link HooksSandbox}; call `sandbox.cleanup()` after the test. */
export function hooksSandbox(prefix: string): HooksSandbox {
  const sandbox = makeSandbox(prefix);
  linkPlugins(sandbox.dataDir, [...HOOK_AGENTS]);
  return { sandbox, home: sandbox.home, project: sandbox.dir('project'), env: { ...sandbox.env, PATH: dirname(process.execPath) + delimiter + '/usr/bin:/bin' } };
}

/** Writes `files` (relative path → text) under `root`, creating directories. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** Runs `cordon <args> --json`; `json` is the parsed stdout (`undefined` when it is not JSON). */
export async function cordonJson(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<RunResult & { json: any }> {
  const r = await runCordon([...args, '--json'], { env, cwd });
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { ...r, json };
}
