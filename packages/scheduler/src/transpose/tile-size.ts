// The transpose tile's extent (both dims) by the widest dtype among the inputs and outputs: read
// by the acceptance (can-schedule.ts: the tile must fit the shared memory and the dims) and by
// the heuristics, which may override it for large transposes.
// Invariant: a pure function of the dtype size.

/** Tile extent (both dims) for the widest dtype among the inputs and outputs. */
export function transposeTileSize(maxDtypeBytes: number): number {
  return maxDtypeBytes >= 4 ? 32 : 64;
}
