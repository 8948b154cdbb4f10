import { describe, expect, it } from 'vitest';
import { CordonError, CordonPluginError, ERROR_CODES } from '../../src/errors/index.js';
import { repoError } from '../../src/envelope/git/run-git.js';
import { nonSnakeKeys } from '../../../../test/support/json-keys.js';

// An error's details go into `--json` output, whose keys are snake_case (docs/reference.md "JSON
// output"). The details type admits no upper-case key: camelCase ones had slipped into the
// errors of an incompatible plugin (apiVersion), a taken registry name (heldBy), install-hooks'
// roll-back (notWritten), a bad --session (sessionId), a failed git (exitCode) and a plugin's
// own code (pluginCode).

describe('error details', () => {
  it('do not compile with a camelCase key', () => {
    // @ts-expect-error `apiVersion` is not a snake_case key (npm run typecheck:tests fails without the error)
    const e = new CordonError(ERROR_CODES.BAD_INPUT, 'x', { details: { apiVersion: 2 } });
    expect(e.details).toEqual({ apiVersion: 2 });
    expect(new CordonError(ERROR_CODES.BAD_INPUT, 'x', { details: { api_version: 2 } }).details).toEqual({ api_version: 2 });
  });

  it('a plugin error keeps the plugin\'s own code as plugin_code; a failed git its exit code as exit_code', () => {
    const plugin = new CordonPluginError('acme', 'audit', Object.assign(new Error('no'), { code: 'E_ACME' }));
    expect(plugin.toJSON()).toMatchObject({ plugin: 'acme', hook: 'audit', plugin_code: 'E_ACME' });
    expect(plugin.pluginCode).toBe('E_ACME');
    const git = repoError(['diff', '--raw'], 'exited 128: fatal', undefined, { exit_code: 128 });
    expect(git.details).toEqual({ git: ['diff', '--raw'], exit_code: 128 });
    expect(nonSnakeKeys(plugin.toJSON())).toEqual([]);
  });
});
