import type { StoreChanges } from "./changes";

/**
 * Reads kept in memory until the store changes: an entry is served only while the
 * store's version is the one it was loaded at, and the first read after a change
 * empties the cache. A pending load is shared, so a burst of identical reads costs
 * one query. Values are shared between callers: never mutate one.
 *
 * Only for reads of tables whose changes move the version everywhere (see
 * StoreChanges), or under a key that itself says what the other tables hold
 * (usage options: the range's usage stamp); reads that depend on the clock
 * must not be cached.
 */
export class ReadCache {
  private readonly entries = new Map<string, Promise<unknown>>();
  /** Loads under way whose value is kept only if it is worth keeping (`get`'s `keep`). */
  private readonly pending = new Map<string, Promise<unknown>>();
  private version = -1;
  private tokens: ReadCache | undefined;

  constructor(
    private readonly changes: StoreChanges,
    private readonly maxEntries = 10_000,
    private readonly versionOf: (changes: StoreChanges) => number = (changes) => changes.version,
  ) {}

  /**
   * A cache of its own for SCIM bearer tokens' lookups: kept until the token tables change
   * (StoreChanges.scimTokensVersion), not emptied by every person a sync provisions.
   */
  get scimTokens(): ReadCache {
    this.tokens ??= new ReadCache(this.changes, 1_000, (changes) => changes.scimTokensVersion);
    return this.tokens;
  }

  /**
   * `keep`, when given, decides once the load is done whether its value is kept: until then the load is shared but
   * takes no place, so values not kept (an unknown key's null, which anyone can ask for in any number) never push
   * out the ones that are.
   */
  get<T>(key: string, load: () => Promise<T>, keep?: (value: T) => boolean): Promise<T> {
    if (!this.changes.coherent) return load();
    const version = this.versionOf(this.changes);
    if (version !== this.version) {
      this.entries.clear();
      this.pending.clear();
      this.version = version;
    }
    const hit = this.entries.get(key) ?? this.pending.get(key);
    if (hit) return hit as Promise<T>;
    const loading = load();
    if (keep) {
      this.pending.set(key, loading);
      loading.then(
        (value) => {
          if (this.pending.get(key) !== loading) return;
          this.pending.delete(key);
          if (keep(value) && this.versionOf(this.changes) === version) this.keep(key, loading);
        },
        () => {
          if (this.pending.get(key) === loading) this.pending.delete(key);
        },
      );
      return loading;
    }
    this.keep(key, loading);
    // A failed load is not kept: the next read tries again.
    loading.catch(() => {
      if (this.entries.get(key) === loading) this.entries.delete(key);
    });
    return loading;
  }

  private keep(key: string, loading: Promise<unknown>): void {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, loading);
  }

  /** Whether entries are being kept: false while changes made elsewhere could go unheard. */
  get coherent(): boolean {
    return this.changes.coherent;
  }

  /** Entries held now (for tests). */
  get size(): number {
    return this.entries.size;
  }
}
