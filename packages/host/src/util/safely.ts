/**
 * What `run` returns (or resolves to), or `fallback` when it throws or rejects: for a read that a
 * report goes on without (an agent's installer whose uninstall plan or `detect` fails is reported
 * as having nothing to say, not as a failure of the whole report).
 */
export async function safely<T, F>(run: () => Promise<T> | T, fallback: F): Promise<T | F> {
  try {
    return await run();
  } catch {
    return fallback;
  }
}
