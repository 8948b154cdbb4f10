import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
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
 * current test, so a test run leaves nothing behind. Only inside a test or its `beforeEach`:
 * made while a file or a `describe` is collected (or in `beforeAll`), the directory would be
 * removed after the first test while later tests still use its path, recreating what they write
 * there with nothing left to remove it (`cordon-guard-rules-*` piled up in /tmp that way), so
 * that throws.
 */
export function tempDirForTest(prefix: string): string {
  if (expect.getState().currentTestName === undefined) {
    throw new Error(`tempDirForTest(${JSON.stringify(prefix)}) outside a test: call it inside the test (or beforeEach), where it is removed after that test`);
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
