import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, sep } from 'node:path';

// Runs once per `vitest run`, in the main process, before any test file (vitest.config.mts
// `globalSetup`). It gives the whole run, and every process the tests start, cordon's own
// directories and the XDG base directories in one temp directory, so a test that forgets its
// sandbox (test/support/cli.ts `makeSandbox`) still writes nothing in the user's home. Its
// teardown then fails the run if anything under the user's own cordon directories (or the
// desktop-entry ones a Wine prefix's boot writes) changed.

/**
 * The user's own directories no test may touch: cordon's data, config and cache, pcodx's ledger, and
 * the desktop-entry directories Wine's menu builder writes when a test's Wine prefix is (re)booted.
 */
export function guardedDirectories(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const xdg = (name: 'XDG_DATA_HOME' | 'XDG_CONFIG_HOME' | 'XDG_CACHE_HOME', fallback: string) => env[name] || join(home, fallback);
  const dirs = [
    join(home, '.local/share/cordon'),
    join(home, '.config/cordon'),
    join(home, '.cache/cordon'),
    join(home, '.local/share/pcodx'),
    join(xdg('XDG_DATA_HOME', '.local/share'), 'cordon'),
    join(xdg('XDG_CONFIG_HOME', '.config'), 'cordon'),
    join(xdg('XDG_CACHE_HOME', '.cache'), 'cordon'),
    join(xdg('XDG_DATA_HOME', '.local/share'), 'pcodx'),
    ...['applications', 'desktop-directories', 'mime'].map((name) => join(home, '.local/share', name)),
  ];
  return [...new Set(dirs)];
}

/** Every path under `root` (itself included) with its type, size and change time; empty when absent. */
export function snapshotTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (path: string) => {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return;
    }
    out.set(path, `${st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : 'file'} ${st.size} ${st.mtimeMs} ${st.ctimeMs}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return out;
}

/** What differs between two snapshots, one line per path. */
export function snapshotChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const lines: string[] = [];
  for (const [path, was] of before) if (!after.has(path)) lines.push(`removed ${path}`);
  for (const [path, now] of after) {
    const was = before.get(path);
    if (was === undefined) lines.push(`created ${path}`);
    else if (was !== now) lines.push(`changed ${path}`);
  }
  return lines;
}

/**
 * `changes` (lines of {@link snapshotChanges}) without those inside a session directory that
 * existed before the run (`<cordon data>/runs/<session>/…`, `before` holding the session
 * directory): the user's own agents, hooked into cordon, go on sampling and marking their live
 * sessions while the tests run (a session's sampler appends to its samples every few hundred ms).
 * A test that escaped its sandbox makes sessions of its own, which are still reported, as is
 * anything else.
 */
export function withoutLiveSessions(changes: readonly string[], before: ReadonlyMap<string, string>): string[] {
  return changes.filter((line) => {
    const path = line.slice(line.indexOf(' ') + 1);
    const at = path.lastIndexOf(`${sep}runs${sep}`);
    if (at < 0) return true;
    const rest = path.slice(at + `${sep}runs${sep}`.length);
    const cut = rest.indexOf(sep);
    const sessionDir = path.slice(0, at + `${sep}runs${sep}`.length + (cut < 0 ? rest.length : cut));
    return !before.get(sessionDir)?.startsWith('dir ');
  });
}

export default function setup(): () => void {
  const guarded = guardedDirectories();
  const before = new Map(guarded.map((dir) => [dir, snapshotTree(dir)]));
  const root = mkdtempSync(join(tmpdir(), 'cordon-vitest-'));
  const sub = (name: string) => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  };
  Object.assign(process.env, {
    CORDON_DATA_DIR: sub('cordon-data'),
    CORDON_CONFIG_DIR: sub('cordon-config'),
    CORDON_CACHE_DIR: sub('cordon-cache'),
    XDG_DATA_HOME: sub('xdg-data'),
    XDG_CONFIG_HOME: sub('xdg-config'),
    XDG_CACHE_HOME: sub('xdg-cache'),
  });
  return () => {
    rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    const changes = guarded.flatMap((dir) => withoutLiveSessions(snapshotChanges(before.get(dir)!, snapshotTree(dir)), before.get(dir)!));
    if (changes.length > 0) {
      // vitest reports an error thrown here but still exits 0: fail the run through the exit code.
      process.exitCode = 1;
      process.stderr.write(`\nFAIL the test run wrote into the user's own directories (a test without its own CORDON_*/XDG directories, or a Wine prefix booted with its menu builder; a cordon you ran yourself with the same HOME while the tests ran writes there too):\n${changes.slice(0, 20).map((line) => `  ${line}`).join('\n')}\n`);
    }
  };
}
