import { nodeModule } from './builtins.js';

/**
 * A getter that `require`s the package `name` on its first call and returns the same module
 * after: for dependencies only some runs need (picomatch for globs, shlex for verifier commands),
 * so the hook and the fast check never pay for resolving and compiling them. Resolution starts at
 * this module (inside a bundle: the bundle's directory), as a static import would.
 */
export function lazyPackage<T>(name: string): () => T {
  let loaded: T | undefined;
  // node:module itself is loaded on first use too (util/builtins.ts).
  return () => (loaded ??= nodeModule().createRequire(import.meta.url)(name) as T);
}
