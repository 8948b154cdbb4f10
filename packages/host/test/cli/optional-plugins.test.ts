import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { call, marker, samples } from '../telemetry/reduce/helpers.js';

// The OpenTelemetry SDK and Vega live in @cordon/otlp and @cordon/charts, not in the CLI: without
// @cordon/otlp `export --otlp` refuses (exit 2) with the install command, before any work; without
// @cordon/charts the HTML report has its tables and says how to add the charts. From this
// checkout the command is the one that links the checkout's plugin (an installed cordon says
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

  it('analyze --format html without @cordon/charts writes the report without charts, saying how to add them', async () => {
    const T = 1_800_000_000_000;
    marker(sandbox.dataDir, 'sess-html', 'session_start', T);
    call(sandbox.dataDir, 'sess-html', 'k1', T + 1000, T + 3000, { command: 'npm test', tool_name: 'Bash', tool: 'shell' });
    samples(sandbox.dataDir, 'sess-html', [
      { t: T + 500, mb: 100, cpu: 10, procs: 1 },
      { t: T + 1500, mb: 300, cpu: 150, procs: 3 },
    ]);
    marker(sandbox.dataDir, 'sess-html', 'session_end', T + 5000);
    const out = join(sandbox.dir('out'), 'report.html');
    const r = await runCordon(['analyze', '--all', '--format', 'html', '--out', out], { env: sandbox.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const hint = `charts need the @cordon/charts plugin (it carries Vega, which the CLI does not): cordon plugins link ${join(REPO_ROOT, 'plugins/charts')} --no-install`;
    expect(r.stderr).toContain(`the report has no charts: ${hint}`);
    const html = readFileSync(out, 'utf8');
    // The tables are there, the charts are not, and the report says how to get them.
    expect(html).toContain('<td>sess-html</td>');
    expect(html).not.toContain('<svg');
    expect(html).toContain(`<p class="caption no-charts">${hint}</p>`);
  });
});
