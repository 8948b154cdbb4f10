/**
 * The scheme of `target` when it is a URL (`scheme://…`, the scheme lower-cased: `mysql` of
 * `MySQL://x`), else undefined (a file path; a Windows drive letter has no `//` after its colon).
 * How a `--db` value is told from a path, for the telemetry store and the pcodx ledger alike.
 */
export function urlScheme(target: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*):\/\//i.exec(target)?.[1]?.toLowerCase();
}
