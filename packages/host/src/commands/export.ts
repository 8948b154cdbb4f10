import { Flags } from '@oclif/core';
import { CordonCommand } from '../cli/cordon-command.js';
import { numberFlag } from '../cli/number-flag.js';
import { parseBaseUrl, shownEndpoint } from '../output/url.js';
import { terminalText } from '../output/terminal.js';
import { exportSessions, type ExportSummary } from '../telemetry/export/index.js';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { pluginInstallCommand } from '../plugins/install-hint.js';
import { parseSince } from './analyze.js';
import { clearStatus, enableStatus, setStatus } from '../output/status.js';

export default class Export extends CordonCommand {
  static override summary = 'Send reduced sessions to an OpenTelemetry collector (OTLP/HTTP): a trace per session, a span per tool call, samples as metrics';
  static override description = [
    'Needs the @cordon/otlp plugin (cordon plugins install otlp). Nothing is sent unless this command is run. Sessions not reduced yet are reduced first; the store is only read otherwise.',
    'Exit 2 when the URL is malformed, or the collector is unreachable, refuses the data, accepts none of it (partialSuccess) or does not answer within --timeout. What it rejected is reported. Credentials in the URL are sent as Basic authentication and never printed.',
  ].join('\n');
  static override examples = ['<%= config.bin %> <%= command.id %> --otlp http://127.0.0.1:4318', '<%= config.bin %> <%= command.id %> --otlp http://collector:4318 --since 2026-11-01'];
  static override flags = {
    otlp: Flags.string({ description: 'Collector base URL; traces go to URL/v1/traces, metrics to URL/v1/metrics (JSON encoding)', required: true, helpValue: 'URL' }),
    session: Flags.string({ description: 'Export this session (id or directory name); repeatable; default: the most recently active one', multiple: true }),
    all: Flags.boolean({ description: 'Export every stored session' }),
    since: Flags.string({ description: 'Export every session whose first event is at or after this date (ISO 8601)' }),
    db: Flags.string({ description: 'Telemetry store to read: an SQLite file that exists (`cordon reduce --db` makes one) or a postgres:// URL (default $CORDON_DB, else <data>/telemetry.sqlite3)', helpValue: 'PATH|URL' }),
    // At most a week, as every other time limit: a Node timer holds no more than about 24.8 days.
    timeout: numberFlag({ integer: true, min: 1, max: 7 * 24 * 3600, unit: 'seconds' })({ description: 'Seconds to wait for each request (default 10, at most 604800)', default: 10 }),
  };

  async run(): Promise<ExportSummary & { db: string }> {
    const { flags } = await this.parse(Export);
    const url = parseBaseUrl(flags.otlp, '--otlp');
    const host = await this.host();
    const exporter = host.exporters.get('otlp');
    if (!exporter) {
      throw new CordonError(ERROR_CODES.REGISTRY_MISSING, `cordon export --otlp needs the @cordon/otlp plugin (it carries the OpenTelemetry SDK, which the CLI does not): ${pluginInstallCommand(['otlp'])}`, {
        details: { registry: 'exporters', name: 'otlp', plugin: '@cordon/otlp' },
      });
    }
    if (enableStatus({ json: this.jsonEnabled() })) setStatus(`cordon export: sending to ${shownEndpoint(flags.otlp)}`);
    const result = await exportSessions({
      exporter,
      dataDir: host.paths.dataDir,
      url: url.toString(),
      sessions: flags.session,
      all: flags.all,
      since: flags.since === undefined ? undefined : parseSince(flags.since),
      db: flags.db,
      timeoutMs: flags.timeout * 1000,
    });
    clearStatus();
    // Exit 0 all the same: a periodic `export --since` of a quiet period is not a failure.
    // stderr under --json too (oclif's logToStderr is silent then): the JSON is stdout's alone.
    if (flags.since !== undefined && result.sessions === 0) process.stderr.write(`${terminalText(`cordon export: no recorded session matches --since ${flags.since}`)}\n`);
    const rejected = result.rejected_spans + result.rejected_data_points;
    const partial = rejected ? `; the collector rejected ${result.rejected_spans} spans and ${result.rejected_data_points} metric points${result.rejection_messages.length ? `: ${result.rejection_messages.join('; ')}` : ''}` : '';
    this.log(terminalText(`exported ${result.sessions} session(s): ${result.spans} spans, ${result.data_points} metric points to ${shownEndpoint(flags.otlp)}${partial}`));
    return result;
  }
}
