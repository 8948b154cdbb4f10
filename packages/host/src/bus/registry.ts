import type { Registrar } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { closestName } from '../util/closest-name.js';
import { firstPartyEntry } from '../plugins/first-party.js';
import { missingEntryHint } from '../plugins/install-hint.js';

/** A registry entry together with the plugin that registered it. */
export interface Registered<T> {
  readonly entry: T;
  readonly plugin: string;
}

/**
 * A host registry keyed by `entry.name` (dialects, runners, samplers, probes). Plugins receive
 * only {@link Registry.registrarFor}'s register-only view.
 */
export class Registry<T extends { readonly name: string }> {
  readonly #entries = new Map<string, Registered<T>>();

  /**
   * @param kind registry name, e.g. `dialects` (error details, logs).
   * @param noun what one entry is, in a user's words, for messages: `agent`, `headless agent runner`.
   */
  constructor(
    readonly kind: string,
    readonly noun: string = kind,
  ) {}

  /** Adds an entry; throws `CORDON_REGISTRY_DUPLICATE` when another plugin has the name. */
  add(entry: T, plugin: string): void {
    const held = this.#entries.get(entry.name);
    if (held) {
      throw new CordonError(ERROR_CODES.REGISTRY_DUPLICATE, `${this.kind}: "${entry.name}" is registered by plugin "${held.plugin}" already; plugin "${plugin}" cannot register it again`, {
        details: { registry: this.kind, name: entry.name, plugin, held_by: held.plugin },
      });
    }
    this.#entries.set(entry.name, { entry, plugin });
  }

  /** The entry named `name`, or `undefined`. */
  get(name: string): T | undefined {
    return this.#entries.get(name)?.entry;
  }

  /**
   * The entry named `name`; throws `CORDON_REGISTRY_MISSING` listing what is registered, with the
   * installed name the user likely meant, else what to install (install-hint.ts
   * `missingEntryHint`: the first-party plugin that registers `name`, the checkout's link from a
   * checkout).
   */
  require(name: string): T {
    const found = this.get(name);
    if (found) return found;
    const known = [...this.#entries.keys()].sort();
    // A name a first-party plugin registers is not a typo of another installed one.
    const meant = firstPartyEntry(this.kind, name) === undefined ? closestName(name, known) : undefined;
    const remedy = meant ? `did you mean "${meant}"?` : missingEntryHint(this.kind, name);
    throw new CordonError(ERROR_CODES.REGISTRY_MISSING, `no ${this.noun} named "${name}" is installed (installed: ${known.length ? known.join(', ') : 'none'}); ${remedy}`, {
      details: { registry: this.kind, name, known, ...(meant ? { suggestion: meant } : {}) },
    });
  }

  /** Every entry with its plugin, sorted by name. */
  list(): Registered<T>[] {
    return [...this.#entries.values()].sort((a, b) => (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0));
  }

  /** Removes every entry `plugin` registered (a plugin whose `apply` failed contributes nothing). */
  removePlugin(plugin: string): void {
    for (const [name, held] of this.#entries) if (held.plugin === plugin) this.#entries.delete(name);
  }

  /**
   * The register-only view handed to `plugin`. Once `withdrawn()` is true (its `apply` failed) a
   * registration is ignored: a failed plugin that registers later, from a timer or a promise,
   * still contributes nothing.
   */
  registrarFor(plugin: string, withdrawn: () => boolean = () => false): Registrar<T> {
    return Object.freeze({
      register: (entry: T) => {
        if (!withdrawn()) this.add(entry, plugin);
      },
    });
  }
}
