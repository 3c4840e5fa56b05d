// `fd.ops` entries for random numbers and triu, with nvFuser's python keywords:
// `uniform(minval, maxval, shape, *, rng_seed=None, rng_offset=None, dtype=Float)`,
// `normal(mean, std, shape, *, rng_seed=None, rng_offset=None, dtype=Float)`,
// `rand_like(arg, *, rng_seed, rng_offset)` / `randn_like` (the pair optional, as nvFuser's
// unary form), `triu(arg, diagonal=0)`. rng_seed and rng_offset come together or not at all.

import * as ir from '@tsfuser/fusion-ir';
import type { DataType, Scalar } from '@tsfuser/fusion-ir';
import type { ScalarHandle, TensorHandle } from './handles.js';
import { op, type OpArgs, type ParamSpec } from './op-spec.js';
import type { Sizes } from './ops-structural.js';

type Seed = ScalarHandle | number | null;
type Param = ScalarHandle | number;

const rngSeed: ParamSpec = { name: 'rngSeed', python: 'rng_seed', kind: 'optScalar', default: null };
const rngOffset: ParamSpec = { name: 'rngOffset', python: 'rng_offset', kind: 'optScalar', default: null };
const floatDtype: ParamSpec = { name: 'dtype', python: 'dtype', kind: 'dtype', default: 'Float' };
const shape: ParamSpec = { name: 'shape', python: 'shape', kind: 'sizes' };
const arg: ParamSpec = { name: 'arg', python: 'arg', kind: 'tensor' };

function rngOptions(a: OpArgs, seedAt: number): ir.RngOptions {
  const seed: Scalar | null = a.optScalar(seedAt);
  const offset: Scalar | null = a.optScalar(seedAt + 1);
  return { rngSeed: seed, rngOffset: offset };
}

export const randomOps = {
  uniform: op<(minval: Param, maxval: Param, shape: Sizes, rngSeed?: Seed, rngOffset?: Seed, dtype?: DataType) => TensorHandle>({
    name: 'uniform',
    python: 'uniform',
    params: [{ name: 'minval', python: 'minval', kind: 'scalar' }, { name: 'maxval', python: 'maxval', kind: 'scalar' }, shape, rngSeed, rngOffset, floatDtype],
    output: 'tensor',
    apply: (fusion, a) => [ir.uniform(fusion, a.sizes(2), a.scalar(0), a.scalar(1), a.dtype(5) ?? 'Float', rngOptions(a, 3))],
  }),
  normal: op<(mean: Param, std: Param, shape: Sizes, rngSeed?: Seed, rngOffset?: Seed, dtype?: DataType) => TensorHandle>({
    name: 'normal',
    python: 'normal',
    params: [{ name: 'mean', python: 'mean', kind: 'scalar' }, { name: 'std', python: 'std', kind: 'scalar' }, shape, rngSeed, rngOffset, floatDtype],
    output: 'tensor',
    apply: (fusion, a) => [ir.normal(fusion, a.sizes(2), a.scalar(0), a.scalar(1), a.dtype(5) ?? 'Float', rngOptions(a, 3))],
  }),
  randLike: op<(arg: TensorHandle, rngSeed?: Seed, rngOffset?: Seed) => TensorHandle>({
    name: 'randLike',
    python: 'rand_like',
    params: [arg, rngSeed, rngOffset],
    output: 'tensor',
    apply: (_f, a) => [ir.randLike(a.tensor(0), rngOptions(a, 1))],
  }),
  randnLike: op<(arg: TensorHandle, rngSeed?: Seed, rngOffset?: Seed) => TensorHandle>({
    name: 'randnLike',
    python: 'randn_like',
    params: [arg, rngSeed, rngOffset],
    output: 'tensor',
    apply: (_f, a) => [ir.randnLike(a.tensor(0), rngOptions(a, 1))],
  }),
  triu: op<(arg: TensorHandle, diagonal?: number) => TensorHandle>({
    name: 'triu',
    python: 'triu',
    params: [{ ...arg, aliases: ['input'] }, { name: 'diagonal', python: 'diagonal', kind: 'int', default: 0 }],
    output: 'tensor',
    apply: (_f, a) => [ir.triu(a.tensor(0), a.int(1))],
  }),
};
