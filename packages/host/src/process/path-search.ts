import { delimiter, join } from 'node:path';

/**
 * The files a command's bare name (no `/`) could be, in the order they are tried: each
 * directory of `pathVar` joined with the name, and on Windows also with each `PATHEXT` extension
 * the name does not already end with (as `child_process` finds it). An empty directory entry is
 * the working directory, as `execvp(3)` reads it; `cwd` names it (default `.`), and `skipEmpty`
 * leaves it out. Only names the candidates; whether one exists is the caller's question.
 */
export function pathCandidates(name: string, pathVar: string | undefined, options: { cwd?: string; platform?: string; pathExt?: string | undefined; skipEmpty?: boolean } = {}): string[] {
  const platform = options.platform ?? process.platform;
  const pathExt = 'pathExt' in options ? options.pathExt : process.env.PATHEXT;
  const exts = platform === 'win32' ? (pathExt || '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean) : [];
  const hasExt = exts.some((e) => name.toLowerCase().endsWith(e.toLowerCase()));
  const names = exts.length === 0 || hasExt ? [name] : [name, ...exts.map((e) => name + e.toLowerCase())];
  const out: string[] = [];
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (dir === '' && options.skipEmpty) continue;
    for (const n of names) out.push(join(dir === '' ? (options.cwd ?? '.') : dir, n));
  }
  return out;
}
