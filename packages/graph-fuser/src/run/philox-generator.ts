// The random-number state of a graph run: a philox seed and a running offset, as PyTorch's CUDA
// generator hands (seed, offset) to each kernel that draws numbers. A fusion with random ops
// (JitLowering.rng) takes `draws` offsets per run, so every run — and every random op of a run —
// gets numbers of its own, and the same seed replays the same numbers (the values are a function
// of seed, offset and element index only, whatever the schedule: fusion-ir eval/random.ts).
// PyTorch's own generator state is not readable here: the numbers differ from PyTorch's.
//
// Invariant: offsets handed out by one generator never repeat.

export interface PhiloxGenerator {
  readonly seed: bigint;
  /** The next offset to hand out. */
  readonly offset: bigint;
  /** Seed and first offset for a fusion that draws `draws` times; advances the offset by `draws`. */
  take(draws: number): { seed: bigint; offset: bigint };
}

/** A generator at `offset` (default 0) for `seed` (default 0, as torch.manual_seed(0)). */
export function createPhiloxGenerator(seed: bigint = 0n, offset: bigint = 0n): PhiloxGenerator {
  let next = offset;
  return {
    seed,
    get offset() {
      return next;
    },
    take(draws: number) {
      if (!Number.isInteger(draws) || draws < 1) throw new Error(`philox generator: ${draws} draws`);
      const given = { seed, offset: next };
      next += BigInt(draws);
      return given;
    },
  };
}
