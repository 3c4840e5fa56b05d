// The executor cache's layout-key memo (executor/cache-keys.ts): for any sequence of calls — the
// same argument objects again, new tensors of a layout seen before, new layouts, integral scalar
// values (numbers, bigints, ones without an exact number) — keyOf returns exactly layoutKey's
// string, so the numeric signature lookup can never hand a call another layout's launch plan.
// Property test (fast-check, seed printed on failure) over tensors on a recording stand-in device.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Fusion, makeTensor } from '@tsfuser/fusion-ir';
import { Tensor, type DeviceContext } from '@tsfuser/device';
import { LayoutKeyMemo, layoutKey } from '../src/executor/cache-keys.js';
import type { ExecutorArgument } from '../src/executor/runtime-info.js';

const device = (() => {
  let next = 0x10000n;
  return {
    isDisposed: false,
    malloc: (bytes: number | bigint): bigint => (next += ((BigInt(bytes) + 511n) / 512n) * 512n + 512n),
    free: (): void => undefined,
  } as unknown as DeviceContext;
})();

/** Inputs: a rank-2 tensor, a rank-3 tensor, an Int scalar (may be a size), a Double scalar. */
function fusion(): Fusion {
  const f = new Fusion();
  f.addInput(makeTensor(f, { shape: [-1, -1], dtype: 'Float' }));
  f.addInput(makeTensor(f, { shape: [-1, -1, -1], dtype: 'Float' }));
  f.addInput(f.newSymbolicScalar('Int'));
  f.addInput(f.newSymbolicScalar('Double'));
  return f;
}

const base = Tensor.emptyDevice(device, 'Float', [4096]);
/** A view of `base` with these sizes and strides starting `offset` elements in (alignment varies with it). */
const view = (sizes: number[], strides: number[], offset: number): Tensor => base.asStrided(sizes, strides, offset);

/** Two layouts of one rank that share their sizes or their strides now and then. */
const pool = (rank: number): fc.Arbitrary<{ sizes: number[]; strides: number[] }[]> => {
  const sizes = fc.array(fc.integer({ min: 0, max: 6 }), { minLength: rank, maxLength: rank });
  const strides = fc.array(fc.integer({ min: 0, max: 40 }), { minLength: rank, maxLength: rank });
  return fc.tuple(sizes, sizes, strides, strides, fc.integer({ min: 0, max: 2 })).map(([s0, s1, t0, t1, shared]) => [
    { sizes: s0, strides: t0 },
    { sizes: shared === 1 ? s0 : s1, strides: shared === 2 ? t0 : t1 },
  ]);
};
const intValue = fc.oneof(fc.integer({ min: -1, max: 1 }), fc.bigInt({ min: -1n, max: 1n }), fc.constant(2n ** 60n), fc.constant(0.5), fc.constant(-0));
// Each call picks its tensors' layouts from two small pools and its own offsets (which set the
// pointer's alignment class), so a sequence meets a known layout with other numbers often.
const pick = fc.integer({ min: 0, max: 1 });
const offset = fc.integer({ min: 0, max: 2 });
const call = fc.record({ a: pick, b: fc.constant(0), offA: offset, offB: offset, i: intValue, x: fc.oneof(fc.double({ noNaN: true }), fc.constant(1)), repeat: fc.boolean() });
const sequence = fc.record({ as: pool(2), bs: pool(3), calls: fc.array(call, { minLength: 1, maxLength: 30 }) });

describe('LayoutKeyMemo', () => {
  it('keyOf equals layoutKey for every call of any sequence', () => {
    fc.assert(
      fc.property(sequence, ({ as, bs, calls }) => {
        const f = fusion();
        const memo = new LayoutKeyMemo(f);
        let last: ExecutorArgument[] | null = null;
        for (const c of calls) {
          const a = as[c.a] as { sizes: number[]; strides: number[] };
          const b = bs[c.b] as { sizes: number[]; strides: number[] };
          const args: ExecutorArgument[] = c.repeat && last !== null ? last : [view(a.sizes, a.strides, c.offA), view(b.sizes, b.strides, c.offB), c.i as ExecutorArgument, c.x];
          expect(memo.keyOf(args)).toBe(layoutKey(f, args));
          last = args;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('finds the key of a known layout for new tensors without the same objects', () => {
    const f = fusion();
    const memo = new LayoutKeyMemo(f);
    const make = (): ExecutorArgument[] => [view([2, 3], [3, 1], 0), view([1, 2, 2], [4, 2, 1], 0), 7, 1.5];
    const first = memo.keyOf(make());
    const other = memo.keyOf([view([3, 2], [2, 1], 0), view([1, 2, 2], [4, 2, 1], 0), 7, 1.5]);
    expect(other).not.toBe(first);
    expect(memo.keyOf(make())).toBe(first);
    // Each number of the layout counts: strides, sizes (same strides), alignment, an Int's value.
    const variants: ExecutorArgument[][] = [
      [view([2, 3], [1, 2], 0), view([1, 2, 2], [4, 2, 1], 0), 7, 1.5],
      [view([3, 3], [3, 1], 0), view([1, 2, 2], [4, 2, 1], 0), 7, 1.5],
      [view([2, 3], [3, 1], 1), view([1, 2, 2], [4, 2, 1], 0), 7, 1.5],
      [view([2, 3], [3, 1], 0), view([1, 2, 2], [4, 2, 1], 0), 7n, 1.5],
    ];
    for (const args of variants) {
      expect(memo.keyOf(args)).toBe(layoutKey(f, args));
      expect(memo.keyOf(args.slice())).toBe(layoutKey(f, args));
    }
    expect(new Set(variants.map((a) => memo.keyOf(a))).size).toBe(variants.length);
    expect(memo.keyOf([view([2, 3], [3, 1], 0), view([1, 2, 2], [4, 2, 1], 0), 8, 1.5])).toBe(layoutKey(f, [view([2, 3], [3, 1], 0), view([1, 2, 2], [4, 2, 1], 0), 8, 1.5]));
  });
});
