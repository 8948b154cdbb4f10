/**
 * Node's built-in modules that the hook and the fast routes (bin/run.cjs) load on their first use
 * rather than when a bundle starts: a static import of `node:crypto` costs the hook's start-up
 * ~15 ms of CPU and the fast `cordon check` about 6 ms before it can start git, `node:module`
 * 0.6–1.3 ms, `node:os` about 1 ms (`npm run bench:hook`, `bench:envelope`). Uses
 * `process.getBuiltinModule` (Node ≥ 20.16; `engines` asks ≥ 20.19), which returns the module
 * object `require` would, loading it once.
 */

/** `node:crypto`, loaded on first call. */
export function nodeCrypto(): typeof import('node:crypto') {
  return process.getBuiltinModule('node:crypto') as typeof import('node:crypto');
}

/** `node:module`, loaded on first call. */
export function nodeModule(): typeof import('node:module') {
  return process.getBuiltinModule('node:module') as typeof import('node:module');
}

/** `node:os`, loaded on first call. */
export function nodeOs(): typeof import('node:os') {
  return process.getBuiltinModule('node:os') as typeof import('node:os');
}

/** `node:child_process`, loaded on first call (`control run` starts most commands without it, `src/process/direct-spawn.ts`). */
export function nodeChildProcess(): typeof import('node:child_process') {
  return process.getBuiltinModule('node:child_process') as typeof import('node:child_process');
}
