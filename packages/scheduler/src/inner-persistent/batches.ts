// The persistent batch of an inner-persistent-style row (the inner and the inner-outer
// persistent schedulers): each thread keeps `batches` vectors of the row in registers and the
// TIDx extent ⌈vectors / batches⌉ covers the rest, padded to a warp multiple. chooseBatches is
// the heuristic choice (see its comment); forcedBatches the launch of a forced batch (an
// override); both are pure arithmetic on the row's vector count.
// Invariant: every returned TIDx extent is at most MAX_THREADS_PER_ROW.

export const MAX_THREADS_PER_ROW = 1024;
export const TARGET_BLOCK_THREADS = 256;

function ceilDiv(a: number, b: number): number {
  return Math.ceil(a / b);
}

/**
 * Cost of a persistent batch that does not divide the row's vectors (the batch loop keeps a
 * predicate per iteration): more than a factor 2 away from the target threads (0.25), less than
 * a factor 8 (0.75), so an even batch at 512 or 128 threads beats an uneven one at 256.
 */
export const UNEVEN_BATCH_COST = 0.5;

/** Threads launched for a TIDx extent: a warp multiple from one warp up (the rest predicated off). */
export function paddedThreads(extent: number, warp = 32): number {
  return extent >= warp ? Math.ceil(extent / warp) * warp : extent;
}

/** The TIDx extent and threads launched for a forced persistent batch (an override). */
export function forcedBatches(vectors: number, batches: number): { batches: number; bdimx: number; extent: number } {
  const extent = ceilDiv(vectors, batches);
  return { batches, extent, bdimx: paddedThreads(extent) };
}

/**
 * The persistent batch and threads per row for `vectors` vectors per row (see the header):
 * `extent` = ⌈vectors / batches⌉ is the TIDx extent, `bdimx` the threads launched for it.
 */
export function chooseBatches(vectors: number, maxBatches: number, targetThreads = TARGET_BLOCK_THREADS): { batches: number; bdimx: number; extent: number } | null {
  let best: { batches: number; bdimx: number; extent: number; cost: number } | null = null;
  for (let b = 1; b <= Math.max(1, maxBatches); b += 1) {
    const extent = Math.max(1, ceilDiv(vectors, b));
    if (extent > MAX_THREADS_PER_ROW) continue;
    if (b > 1 && ceilDiv(vectors, b - 1) === extent) continue; // same threads, more padding
    const bdimx = paddedThreads(extent);
    const fewThreads = bdimx < Math.min(128, vectors) ? 8 : 0;
    // Idle lanes: padded batches and padded threads, as a fraction of the row.
    const waste = vectors === 0 ? 0 : ((b * bdimx - vectors) / vectors) * 4;
    const size = Math.abs(Math.log2(bdimx / targetThreads)) * 0.25;
    const uneven = vectors % b === 0 ? 0 : UNEVEN_BATCH_COST;
    const cost = fewThreads + waste + size + uneven;
    if (best === null || cost < best.cost) best = { batches: b, bdimx, extent, cost };
  }
  return best === null ? null : { batches: best.batches, bdimx: best.bdimx, extent: best.extent };
}

