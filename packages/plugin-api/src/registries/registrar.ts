/**
 * The register-only view of a host registry that plugins receive. The host keeps the full
 * registry (lookup, listing); plugins can only add to it.
 */
export interface Registrar<T extends { readonly name: string }> {
  /**
   * Adds an entry. Throws `CORDON_REGISTRY_DUPLICATE` when the name is taken, so two plugins
   * can never silently shadow each other.
   */
  register(entry: T): void;
}
