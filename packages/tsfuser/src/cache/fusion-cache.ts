// FusionCache: definitions by id, as nvFuser's FusionCache. A definition's identity is the hash
// of its record list; the first definition with a given hash gets the next id (0, 1, …) and
// every later identical definition gets the same id and shares the cached Fusion.
//
// Invariant: ids are dense and never reused within one cache; entries are never mutated.

import type { Fusion } from '@tsfuser/fusion-ir';
import { hashRecords, type FusionRecord } from '../definition/records.js';

export interface FusionCacheEntry {
  readonly id: number;
  readonly hash: string;
  readonly records: readonly FusionRecord[];
  /** The Fusion built by the first definition with this hash. */
  readonly fusion: Fusion;
}

let defaultCache: FusionCache | undefined;

export class FusionCache {
  private readonly byHash = new Map<string, FusionCacheEntry>();
  private readonly byId: FusionCacheEntry[] = [];

  /** The process-wide cache `FusionDefinition` uses unless given another (nvFuser's FusionCache::get()). */
  static get(): FusionCache {
    defaultCache ??= new FusionCache();
    return defaultCache;
  }

  /** The entry for these records, inserting it (with `fusion`) when new. */
  lookupOrInsert(records: readonly FusionRecord[], fusion: Fusion): FusionCacheEntry {
    const hash = hashRecords(records);
    const found = this.byHash.get(hash);
    if (found !== undefined) return found;
    const entry: FusionCacheEntry = { id: this.byId.length, hash, records: [...records], fusion };
    this.byHash.set(hash, entry);
    this.byId.push(entry);
    return entry;
  }

  lookup(records: readonly FusionRecord[]): FusionCacheEntry | undefined {
    return this.byHash.get(hashRecords(records));
  }

  entry(id: number): FusionCacheEntry | undefined {
    return this.byId[id];
  }

  /** Number of distinct definitions (nvFuser's num_fusions()). */
  numFusions(): number {
    return this.byId.length;
  }
}
