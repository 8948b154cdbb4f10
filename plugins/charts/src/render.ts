import * as vega from 'vega';
import * as vegaLite from 'vega-lite';

/**
 * Draws one Vega-Lite v6 spec as an SVG string: Vega-Lite compiles it to a Vega spec, and Vega's
 * headless view renders it (`renderer: 'none'`: no browser, no canvas; text widths are
 * estimated). Vega docs: https://vega.github.io/vega/docs/api/view/#view_toSVG
 * @throws Error when the spec does not compile.
 */
export async function renderSvg(spec: Readonly<Record<string, unknown>>): Promise<string> {
  const compiled = vegaLite.compile({ $schema: 'https://vega.github.io/schema/vega-lite/v6.json', ...spec, config: { font: 'sans-serif', view: { stroke: null } } } as never).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
