/**
 * Chart renderers (`api.charts`): the HTML report of `cordon analyze` describes each chart as a
 * Vega-Lite specification (https://vega.github.io/vega-lite/docs/spec.html) and asks the
 * renderer for an SVG image. The host builds the specifications and the page; the renderer
 * (`@cordon/charts`, Vega's headless renderer) is carried only by those who install it.
 */
export interface ChartRendererEntry {
  /** Renderer name (e.g. `vega`). */
  readonly name: string;
  /**
   * One chart as a standalone `<svg>` element. `spec` is a Vega-Lite v6 top-level spec without
   * `$schema`; the renderer adds its own config. Throws when the spec is invalid.
   */
  readonly renderSvg: (spec: Readonly<Record<string, unknown>>) => Promise<string>;
}
