import type { KernelEvent } from "./hooks";

type RegistryOverride = Extract<KernelEvent, { type: "registry.override" }>;

/** One registration: what was registered, under which name, by which plugin. */
export interface RegistryEntry<T> {
  name: string;
  value: T;
  /** The plugin (or `options.*` field) that registered it. */
  owner: string;
}

/**
 * A registry as plugins see it (`kernel.registries.*`): its methods only. A mapped type, not the
 * class, so a plugin type-checked against a second copy of ubiquity still fits the kernel's
 * types (a class with private fields is only ever compatible with itself).
 */
export type RegistryApi<T> = Pick<
  Registry<T>,
  "register" | "unregister" | "get" | "has" | "values" | "entries" | "provenance"
>;

/**
 * A name-keyed registry: the last registration of a name wins, every registration is kept
 * as provenance, and an override is reported (the kernel turns it into an `event`).
 */
export class Registry<T> {
  readonly #current = new Map<string, RegistryEntry<T>>();
  readonly #history: RegistryEntry<T>[] = [];
  constructor(
    readonly kind: string,
    /** Told when a later registration replaces an earlier one (the kernel fires it on `event`). */
    private readonly onOverride?: (event: RegistryOverride) => void,
  ) {}

  /** Register `value` under `name`; a later registration of the same name wins. */
  register(name: string, value: T, owner: string): void {
    const entry: RegistryEntry<T> = { name, value, owner };
    const previous = this.#current.get(name);
    // Re-registering keeps the original position, so order stays the order names first appeared.
    this.#current.set(name, entry);
    this.#history.push(entry);
    if (previous)
      this.onOverride?.({ type: "registry.override", registry: this.kind, name, winner: owner, loser: previous.owner });
  }

  /** Remove a name (e.g. a dead MCP server's tools). */
  unregister(name: string): boolean {
    return this.#current.delete(name);
  }

  get(name: string): T | undefined {
    return this.#current.get(name)?.value;
  }

  has(name: string): boolean {
    return this.#current.has(name);
  }

  /** The winning values, in first-registration order. */
  values(): T[] {
    return [...this.#current.values()].map((e) => e.value);
  }

  /** The winning entries, in first-registration order. */
  entries(): RegistryEntry<T>[] {
    return [...this.#current.values()];
  }

  /** For every name: the winner and the registrations it replaced. */
  provenance(): { name: string; winner: RegistryEntry<T>; losers: RegistryEntry<T>[] }[] {
    return [...this.#current.values()].map((winner) => ({
      name: winner.name,
      winner,
      losers: this.#history.filter((e) => e.name === winner.name && e !== winner),
    }));
  }
}
