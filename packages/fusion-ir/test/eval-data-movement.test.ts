import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import { EvaluationError, HostTensor } from '../src/index.js';
import { inputLike, randomTensor, runFusion } from './eval-helpers.js';

/** Row-major multi-index of a linear index. */
function unravel(linear: number, sizes: readonly number[]): number[] {
  const idx = new Array<number>(sizes.length);
  let rem = linear;
  for (let d = sizes.length - 1; d >= 0; d -= 1) {
    const s = sizes[d] as number;
    idx[d] = rem % s;
    rem = Math.floor(rem / s);
  }
  return idx;
}
function ravel(idx: readonly number[], sizes: readonly number[]): number {
  return idx.reduce((acc, i, d) => acc * (sizes[d] as number) + i, 0);
}

describe('data movement ops against index arithmetic', () => {
  it('permute', () => {
    const x = randomTensor('Float', [2, 3, 4]);
    const [y] = runFusion((f) => f.addOutput(ops.permute(inputLike(f, x), [2, 0, 1])), [x]) as [HostTensor];
    expect(y.sizes).toEqual([4, 2, 3]);
    const xs = x.toNumbers();
    y.toNumbers().forEach((v, i) => {
      const [c, a, b] = unravel(i, [4, 2, 3]) as [number, number, number];
      expect(Object.is(v, xs[ravel([a, b, c], [2, 3, 4])])).toBe(true);
    });
  });

  it('reshape is a row-major reinterpretation, also of a permuted (non-contiguous) tensor', () => {
    const x = randomTensor('Double', [3, 4]);
    const [y, z] = runFusion((f) => {
      const t = inputLike(f, x);
      f.addOutput(ops.reshape(t, [2, 6]));
      f.addOutput(ops.reshape(ops.permute(t, [1, 0]), [12]));
    }, [x]) as [HostTensor, HostTensor];
    expect(y.sizes).toEqual([2, 6]);
    expect(y.toNumbers()).toEqual(x.toNumbers());
    const xs = x.toNumbers();
    z.toNumbers().forEach((v, i) => expect(Object.is(v, xs[(i % 3) * 4 + Math.floor(i / 3)])).toBe(true));
  });

  it('a reshape whose symbolic sizes do not hold the input is an error, not a rounded shape', () => {
    // y (15 elements) to [size(x, 0), size(x, 1)] = [22, 15]: the split-derived outer extent
    // would be ceilDiv(15, 15) = 1; PyTorch says shape '[22, 15]' is invalid for input of size 15.
    const x = randomTensor('Float', [22, 15]);
    const y = randomTensor('Float', [15]);
    const build = (f: ops.Fusion): void => {
      const tx = inputLike(f, x);
      const ty = inputLike(f, y);
      f.addOutput(ops.reshape(ty, [ops.size(tx, 0), ops.size(tx, 1)]));
    };
    expect(() => runFusion(build, [x, y])).toThrow(EvaluationError);
    expect(() => runFusion(build, [x, y])).toThrow('reshape producing T2: shape [22, 15] is invalid for input of size 15 (sizes [15])');
    const [ok] = runFusion(build, [randomTensor('Float', [1, 15]), y]) as [HostTensor];
    expect(ok.sizes).toEqual([1, 15]);
  });

  it('slice with negative start, clamped stop and steps', () => {
    const x = randomTensor('Float', [5, 7]);
    const [y] = runFusion((f) => f.addOutput(ops.slice(inputLike(f, x), [-4, 1], [100, 7], [2, 3])), [x]) as [HostTensor];
    expect(y.sizes).toEqual([2, 2]);
    const xs = x.toNumbers();
    y.toNumbers().forEach((v, i) => {
      const [a, b] = unravel(i, [2, 2]) as [number, number];
      expect(Object.is(v, xs[(1 + 2 * a) * 7 + (1 + 3 * b)])).toBe(true);
    });
  });

  it('pad: widths last dim first, negative widths crop, value fills', () => {
    const x = randomTensor('Float', [3, 4]);
    const [y] = runFusion((f) => f.addOutput(ops.pad(inputLike(f, x), [2, -1, -1, 1], 9.5)), [x]) as [HostTensor];
    expect(y.sizes).toEqual([3, 5]);
    const xs = x.toNumbers();
    y.toNumbers().forEach((v, i) => {
      const [r, c] = unravel(i, [3, 5]) as [number, number];
      const sr = r + 1; // one row cropped at the top
      const sc = c - 2; // two columns added on the left
      const want = sr < 3 && sc >= 0 && sc < 3 ? xs[sr * 4 + sc] : 9.5;
      expect(Object.is(v, want)).toBe(true);
    });
  });

  it('cat along a middle dim (dtype promotion casts first)', () => {
    const a = randomTensor('Float', [2, 3, 2]);
    const b = randomTensor('Half', [2, 1, 2]);
    const [y] = runFusion((f) => f.addOutput(ops.cat([inputLike(f, a), inputLike(f, b)], 1)), [a, b]) as [HostTensor];
    expect(y.sizes).toEqual([2, 4, 2]);
    expect(y.dtype).toBe('Float');
    const as = a.toNumbers();
    const bs = b.toNumbers();
    y.toNumbers().forEach((v, i) => {
      const [p, q, r] = unravel(i, [2, 4, 2]) as [number, number, number];
      const want = q < 3 ? as[ravel([p, q, r], [2, 3, 2])] : bs[ravel([p, 0, r], [2, 1, 2])];
      expect(Object.is(v, want)).toBe(true);
    });
  });

  it('broadcastInDim + expand give the expanded size; squeeze drops size-1 dims', () => {
    const x = randomTensor('Float', [3]);
    const [y, z] = runFusion((f) => {
      const t = inputLike(f, x);
      f.addOutput(ops.broadcastInDim(t, [2, 3, 4], [1]));
      f.addOutput(ops.squeeze(ops.broadcast(t, [true, false, true]), [0, 2]));
    }, [x]) as [HostTensor, HostTensor];
    expect(y.sizes).toEqual([2, 3, 4]);
    const xs = x.toNumbers();
    y.toNumbers().forEach((v, i) => expect(Object.is(v, xs[(unravel(i, [2, 3, 4]) as number[])[1] as number])).toBe(true));
    expect(z.sizes).toEqual([3]);
    expect(z.toNumbers()).toEqual(xs);
  });

  it('full and iota (int and float)', () => {
    const [a, b, c] = runFusion((f) => {
      f.addOutput(ops.full(f, [2, 3], 7, 'Int32'));
      f.addOutput(ops.iota(f, 5, 3, -2, 'Int'));
      f.addOutput(ops.arange(f, 0, 1, 0.25, 'Float'));
    }, []) as [HostTensor, HostTensor, HostTensor];
    expect(a.toNumbers()).toEqual([7, 7, 7, 7, 7, 7]);
    expect([0, 1, 2, 3, 4].map((i) => b.get(i))).toEqual([3n, 1n, -1n, -3n, -5n]);
    expect(c.toNumbers()).toEqual([0, 0.25, 0.5, 0.75]);
  });

  it('size-0 dims flow through pointwise ops, slices and cat', () => {
    const x = HostTensor.empty('Float', [0, 3]);
    const w = randomTensor('Float', [2, 3]);
    const [y, z] = runFusion((f) => {
      const t = inputLike(f, x);
      f.addOutput(ops.exp(t));
      f.addOutput(ops.cat([t, inputLike(f, w)], 0));
    }, [x, w]) as [HostTensor, HostTensor];
    expect(y.sizes).toEqual([0, 3]);
    expect(z.toNumbers()).toEqual(w.toNumbers());
  });

  it('squeeze of a dim that is not 1 at run time is an error', () => {
    const x = randomTensor('Float', [2, 3]);
    expect(() => runFusion((f) => f.addOutput(ops.squeeze(inputLike(f, x), [0])), [x])).toThrow(EvaluationError);
  });
});
