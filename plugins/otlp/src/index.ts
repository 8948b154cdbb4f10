import type { CordonPlugin } from '@cordon/plugin-api';

/**
 * The `cordon:register` oclif hook of @cordon/otlp: registers the `otlp` exporter behind
 * `cordon export --otlp URL`. The OpenTelemetry SDK loads only when an export runs, so the
 * plugin costs nothing on the hook path (which loads every plugin once to index it).
 */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'otlp',
    apply(api) {
      api.exporters.register({
        name: 'otlp',
        export: async (sessions, options) => (await import('./otlp.js')).exportSessions(sessions, options),
      });
    },
  };
}
