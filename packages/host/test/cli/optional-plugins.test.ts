import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';

// The OpenTelemetry SDK and Vega live in @cordon/otlp and @cordon/charts, not in the CLI: without
// them, the two commands that need them refuse (exit 2) with the install command, before any work:
// from this checkout, the command that links the checkout's plugin (an installed cordon says
// `cordon plugins install otlp`: test/e2e/registry).

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-optional-');
});
afterEach(() => sandbox.cleanup());

describe('commands whose library is in an optional plugin', () => {
  it('export --otlp without @cordon/otlp says what to install and sends nothing', async () => {
    const r = await runCordon(['export', '--otlp', 'http://127.0.0.1:9/', '--json'], { env: sandbox.env });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'CORDON_REGISTRY_MISSING', message: expect.stringContaining(`cordon plugins link ${join(REPO_ROOT, 'plugins/otlp')} --no-install`) });
    // Refused before the store was opened or any session reduced.
    expect(existsSync(join(sandbox.dataDir, 'telemetry.sqlite3'))).toBe(false);
  });

  it('analyze --format html without @cordon/charts says what to install and writes no report', async () => {
    const out = join(sandbox.dir('out'), 'report.html');
    const r = await runCordon(['analyze', '--all', '--format', 'html', '--out', out], { env: sandbox.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.replace(/\s+/g, ' ')).toContain(`cordon plugins link ${join(REPO_ROOT, 'plugins/charts')} --no-install`);
    expect(readdirSync(sandbox.dir('out'))).toEqual([]);
  });
});
