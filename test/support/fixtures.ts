import { join } from 'node:path';
import { REPO_ROOT } from './cli.js';

/**
 * The hook payloads captured from the real agents (`test/fixtures/hook-payloads/`, one file per
 * agent, event and variant; its README says which agent version wrote each and how to capture
 * them again).
 */
export const HOOK_PAYLOADS = join(REPO_ROOT, 'test/fixtures/hook-payloads');

/** The path of one captured payload, e.g. `hookPayload('claude-code.PreToolUse.Bash')`. */
export function hookPayload(name: string): string {
  return join(HOOK_PAYLOADS, `${name}.json`);
}
