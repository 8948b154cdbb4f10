import type { CordonPlugin } from '@cordon/plugin-api';

/**
 * The `cordon:register` oclif hook of @cordon/charts: registers the `vega` chart renderer that
 * `cordon analyze --format html` draws its charts with. Vega loads only when a chart is drawn,
 * so the plugin costs nothing on the hook path (which loads every plugin once to index it).
 */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'charts',
    apply(api) {
      api.charts.register({
        name: 'vega',
        renderSvg: async (spec) => ((await loadModule('./render.js')) as typeof import('./render.js')).renderSvg(spec),
      });
    },
  };
}

/**
 * `import()` of a path the bundler cannot follow: Vega is an ES module only, which the CommonJS
 * register bundle could not `require`, so `render.js` stays the separate module tsc emitted.
 */
const loadModule = (specifier: string): Promise<unknown> => import(specifier);
