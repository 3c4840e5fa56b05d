// A seeded linear-congruential generator for the chain tests' inputs (values in [0, 1)); the
// same seed gives the same sequence, so a failing case replays.
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
