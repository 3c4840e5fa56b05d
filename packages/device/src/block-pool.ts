// BlockPool: the bookkeeping of DeviceContext's caching allocator (as PyTorch's): freed device
// blocks kept by rounded size for reuse, at most `limitBytes` in total. Giving back a block that
// does not fit evicts the largest pooled blocks first (they are the least likely to be asked for
// again and free the most room), so a few huge temporary buffers cannot fill the pool and turn
// every later free into a synchronous cuMemFree. Pure: it returns the pointers the caller must
// hand to the driver. Invariant: `bytes` equals the sum of the sizes of the pooled blocks and
// never exceeds `limitBytes`.

const NOTHING: readonly bigint[] = Object.freeze([]);

export class BlockPool {
  private readonly bySize = new Map<number, bigint[]>();
  private total = 0;

  constructor(public limitBytes: number) {}

  get bytes(): number {
    return this.total;
  }

  /** A pooled block of exactly `bytes` (already rounded), or undefined. */
  take(bytes: number): bigint | undefined {
    const pointer = this.bySize.get(bytes)?.pop();
    if (pointer !== undefined) this.total -= bytes;
    return pointer;
  }

  /**
   * Takes the pooled block at `pointer` (of exactly `bytes`, rounded) out of the pool; false when
   * it is not pooled (live, or given back to the driver). A replay of a CUDA graph captured on a
   * call's own output addresses takes those blocks back (runtime graph-capture.ts).
   */
  takeBlock(pointer: bigint, bytes: number): boolean {
    const list = this.bySize.get(bytes);
    if (list === undefined) return false;
    // The block freed last is at the end: search from there (a replay reclaims what its caller just disposed).
    const at = list.lastIndexOf(pointer);
    if (at < 0) return false;
    list.splice(at, 1);
    this.total -= bytes;
    return true;
  }

  /** Pools a freed block; returns the pointers to release to the driver (evicted or this one). */
  give(pointer: bigint, bytes: number): readonly bigint[] {
    if (bytes > this.limitBytes) return [pointer];
    // The common case (room left): nothing to evict, no array made (every free of a cached call).
    const release = this.total + bytes <= this.limitBytes ? NOTHING : this.evictUntil(this.limitBytes - bytes);
    const list = this.bySize.get(bytes);
    if (list === undefined) this.bySize.set(bytes, [pointer]);
    else list.push(pointer);
    this.total += bytes;
    return release;
  }

  /** Evicts largest blocks until at most `limitBytes` remain pooled (after lowering the limit). */
  trim(): bigint[] {
    return this.evictUntil(this.limitBytes);
  }

  private evictUntil(target: number): bigint[] {
    const release: bigint[] = [];
    while (this.total > target) {
      const sizes = [...this.bySize.entries()].filter(([, l]) => l.length > 0).map(([s]) => s);
      if (sizes.length === 0) break;
      const largest = Math.max(...sizes);
      const victim = this.bySize.get(largest)?.pop() as bigint;
      this.total -= largest;
      release.push(victim);
    }
    return release;
  }

  /** Empties the pool; returns every pooled pointer. */
  drain(): bigint[] {
    const all = [...this.bySize.values()].flat();
    this.bySize.clear();
    this.total = 0;
    return all;
  }
}
