// In-place output cases, one or more per scheduler kind (device-free, shared by the GPU suite
// gpu/inplace-suite.ts and the CPU test test/inplace-cases.test.ts): each builds an nvFuser-style
// definition that writes a result into an input (add_output(t, alias_input=x)) — hidden, also
// returned as a visible output, or with the updated input itself returned — and seeded inputs
// whose sizes make the segmenter pick `scheduler` for the segment that computes the update.
// Invariant: a case's inputs depend only on its seed and dims; `scheduler` is one the CPU dry run of its
// plan shows (the test checks it), so the GPU suite checks in-place semantics under that kind.

import { DataType, HostTensor, type DataType as DType } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import type { SchedulerType } from '@tsfuser/scheduler';
import type { CompilePlan } from '@tsfuser/runtime';
import { FusionDefinition } from '../src/definition/fusion-definition.js';
import { FusionCache } from '../src/cache/fusion-cache.js';

export interface InplaceCase {
  name: string;
  /** The scheduler of the segment that computes the in-place update. */
  scheduler: SchedulerType;
  /** [rows, cols] the GPU suite runs (large enough for `scheduler`); tests also run small ones. */
  dims: readonly [number, number];
  build(rows: number, cols: number): FusionDefinition;
  /** Host inputs, contiguous, values from a generator seeded with `seed`. */
  inputs(seed: number, rows: number, cols: number): Tensor[];
  /** Relative tolerance for Float results (sums of many terms round more than one op). */
  rtol: number;
}

function seeded(seed: number): () => number {
  // A 32-bit xorshift: the same stream on every machine.
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** A contiguous host tensor of uniform values in [lo, hi). */
function uniform(dtype: DType, sizes: number[], r: () => number, lo = -1, hi = 1): Tensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  const values = Array.from({ length: n }, () => lo + (hi - lo) * r());
  return Tensor.fromHost(HostTensor.fromValues(dtype, sizes, values));
}

const build = (body: (fd: FusionDefinition) => void): FusionDefinition => FusionDefinition.build(body, { cache: new FusionCache() });

export const INPLACE_CASES: readonly InplaceCase[] = [
  {
    // x.add_(y); return x — the case: the aliased input also returned.
    name: 'pointwise: x.add_(y), x returned',
    dims: [1031, 997],
    scheduler: 'pointwise',
    rtol: 1e-5,
    build: () =>
      build((fd) => {
        const x = fd.defineTensor(2);
        const y = fd.defineTensor(2);
        fd.addOutput(fd.ops.add(x, y), x);
        fd.addOutput(x);
      }),
    inputs: (seed, rows, cols) => {
      const r = seeded(seed);
      return [uniform('Float', [rows, cols], r), uniform('Float', [rows, cols], r)];
    },
  },
  {
    // out = x.mul_(y) in half: the visible aliased output is x's buffer.
    name: 'pointwise: half x.mul_(y) visible',
    dims: [333, 777],
    scheduler: 'pointwise',
    rtol: 1e-5,
    build: () =>
      build((fd) => {
        const x = fd.defineTensor(2, DataType.Half);
        const y = fd.defineTensor(2, DataType.Half);
        const product = fd.ops.mul(x, y);
        fd.addOutput(product);
        fd.addOutput(product, x);
      }),
    inputs: (seed, rows, cols) => {
      const r = seeded(seed);
      return [uniform('Half', [rows, cols], r), uniform('Half', [rows, cols], r)];
    },
  },
  {
    // running = 0.9 * running + 0.1 * x.sum(1), hidden; x.sum(1) also returned.
    name: 'reduction: running row sums, hidden alias',
    dims: [4099, 3001],
    scheduler: 'reduction',
    rtol: 1e-4,
    build: () =>
      build((fd) => {
        const x = fd.defineTensor(2);
        const running = fd.defineTensor(1);
        const sums = fd.ops.sum(x, [1]);
        fd.addOutput(sums);
        fd.addOutput(fd.ops.add(fd.ops.mul(running, 0.9), fd.ops.mul(sums, 0.1)), running);
      }),
    inputs: (seed, rows, cols) => {
      const r = seeded(seed);
      return [uniform('Float', [rows, cols], r, 0.5, 1.5), uniform('Float', [rows], r)];
    },
  },
  {
    // x.copy_(softmax(x, 1)); return x.
    name: 'inner_persistent: in-place softmax, x returned',
    dims: [2048, 1024],
    scheduler: 'inner_persistent',
    rtol: 1e-4,
    build: (rows, cols) =>
      build((fd) => {
        const x = fd.defineTensor(2);
        const rowMax = fd.ops.broadcastInDim(fd.ops.max(x, [1]), [rows, cols], [0]);
        const e = fd.ops.exp(fd.ops.sub(x, rowMax));
        const softmax = fd.ops.div(e, fd.ops.broadcastInDim(fd.ops.sum(e, [1]), [rows, cols], [0]));
        fd.addOutput(softmax, x);
        fd.addOutput(x);
      }),
    inputs: (seed, rows, cols) => [uniform('Float', [rows, cols], seeded(seed), -4, 4)],
  },
  {
    // Batch-norm-like: y = x - mean(x, 0) returned, running_mean updated in place (hidden).
    name: 'outer_persistent: centered x, running mean hidden',
    dims: [1024, 512],
    scheduler: 'outer_persistent',
    rtol: 1e-4,
    build: (rows, cols) =>
      build((fd) => {
        const x = fd.defineTensor(2);
        const running = fd.defineTensor(1);
        const mean = fd.ops.mean(x, [0]);
        fd.addOutput(fd.ops.sub(x, fd.ops.broadcastInDim(mean, [rows, cols], [1])));
        fd.addOutput(fd.ops.add(fd.ops.mul(running, 0.9), fd.ops.mul(mean, 0.1)), running);
      }),
    inputs: (seed, rows, cols) => {
      const r = seeded(seed);
      return [uniform('Float', [rows, cols], r, 0.5, 1.5), uniform('Float', [cols], r)];
    },
  },
  {
    // layer_norm backward with the weight gradient accumulated in place (dweight.add_(...)):
    // grad_input returned (inner reductions), sum(grad_out * xhat, 0) added into `acc` (outer
    // reduction), acc also returned.
    name: 'inner_outer_persistent: layer_norm backward, dweight accumulated, acc returned',
    dims: [2048, 1024],
    scheduler: 'inner_outer_persistent',
    rtol: 1e-4,
    build: (rows, cols) =>
      build((fd) => {
        const go = fd.defineTensor(2);
        const x = fd.defineTensor(2);
        const mean = fd.defineTensor(1);
        const rstd = fd.defineTensor(1);
        const w = fd.defineTensor(1);
        const acc = fd.defineTensor(1);
        const rows2 = (t: typeof mean): typeof x => fd.ops.broadcastInDim(t, [rows, cols], [0]);
        const xhat = fd.ops.mul(fd.ops.sub(x, rows2(mean)), rows2(rstd));
        const g = fd.ops.mul(go, fd.ops.broadcastInDim(w, [rows, cols], [1]));
        const a = rows2(fd.ops.sum(fd.ops.mul(g, xhat), [1]));
        const b = rows2(fd.ops.sum(g, [1]));
        const gi = fd.ops.mul(fd.ops.sub(fd.ops.sub(g, fd.ops.div(b, cols)), fd.ops.div(fd.ops.mul(xhat, a), cols)), rows2(rstd));
        fd.addOutput(gi);
        fd.addOutput(fd.ops.add(acc, fd.ops.sum(fd.ops.mul(go, xhat), [0])), acc);
        fd.addOutput(acc);
      }),
    inputs: (seed, rows, cols) => {
      const r = seeded(seed);
      return [
        uniform('Float', [rows, cols], r),
        uniform('Float', [rows, cols], r),
        uniform('Float', [rows], r, -0.1, 0.1),
        uniform('Float', [rows], r, 0.5, 1.5),
        uniform('Float', [cols], r),
        uniform('Float', [cols], r),
      ];
    },
  },
  {
    // y.add_(x.t()); return y (a transposed read into a row-major in-place write).
    name: 'transpose: y.add_(x.t()), y returned',
    dims: [1024, 2048],
    scheduler: 'transpose',
    rtol: 1e-5,
    build: () =>
      build((fd) => {
        const x = fd.defineTensor(2);
        const y = fd.defineTensor(2);
        fd.addOutput(fd.ops.add(y, fd.ops.permute(x, [1, 0])), y);
        fd.addOutput(y);
      }),
    inputs: (seed, rows, cols) => {
      const r = seeded(seed);
      return [uniform('Float', [cols, rows], r), uniform('Float', [rows, cols], r)];
    },
  },
  {
    // x.cumsum_(1): a scan written back into its own input, visible.
    name: 'greedy: x.cumsum_(1) visible',
    dims: [256, 513],
    scheduler: 'greedy',
    rtol: 1e-4,
    build: () =>
      build((fd) => {
        const x = fd.defineTensor(2);
        const scan = fd.ops.cumsum(x, 1);
        fd.addOutput(scan, x);
        fd.addOutput(scan);
      }),
    inputs: (seed, rows, cols) => [uniform('Float', [rows, cols], seeded(seed), 0.5, 1.5)],
  },
  {
    // dst.copy_(src): the output is an input, so a set() makes the write; both returned.
    name: 'expr_eval: dst.copy_(src), dst returned',
    dims: [129, 65],
    scheduler: 'expr_eval',
    rtol: 0,
    build: () =>
      build((fd) => {
        const dst = fd.defineTensor(2);
        const src = fd.defineTensor(2);
        fd.addOutput(src, dst);
        fd.addOutput(dst);
      }),
    inputs: (seed, rows, cols) => {
      const r = seeded(seed);
      return [uniform('Float', [rows, cols], r), uniform('Float', [rows, cols], r)];
    },
  },
];

/** The scheduler of every segment of a compile plan, in segment order. */
export function planSchedulers(plan: CompilePlan): string[] {
  return plan.segments.map((s) => {
    switch (s.kind) {
      case 'view':
        return 'expr_eval';
      case 'empty':
        return 'no_op';
      case 'kernel':
      case 'greedy':
        return s.params.schedulerType;
      case 'libraryCall':
        return 'matmul';
      case 'attention':
        return 'attention';
      default: {
        const unreachable: never = s;
        return String(unreachable);
      }
    }
  });
}

/** A host copy of a tensor in the same layout (the reference run writes it, not the original). */
export function hostClone(t: Tensor): Tensor {
  const h = t.toHost();
  return Tensor.fromHost(new HostTensor(h.dtype, h.sizes, h.strides, h.data.slice(), h.offset));
}
