/**
 * A per-platform process-tree sampler (research/cordon-resource.md A.5).
 */
export interface SamplerEntry {
  /** Sampler name, e.g. `linux-proc`, `windows`. */
  readonly name: string;
  /** `process.platform` values this sampler serves. */
  readonly platforms: readonly NodeJS.Platform[];
  /** Loads the sampler implementation lazily. */
  readonly load: () => Promise<unknown>;
}
