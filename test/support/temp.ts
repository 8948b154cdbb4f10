import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { stopSamplersUnder } from './samplers.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) {
    // A hook run in the directory may have started a session sampler that still writes there.
    stopSamplersUnder(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
});

/**
 * A new directory under the system temp directory (`<tmp>/<prefix>XXXXXX`), removed after the
 * current test, so a test run leaves nothing behind.
 */
export function tempDirForTest(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
