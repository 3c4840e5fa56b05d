// Lone composite ops (composite-singletons.ts): a graph holding only log_softmax, softmax, gelu,
// silu, softplus, layer_norm, mean, var or an activation backward becomes one prim::CudaFusionGroup, whose
// guard takes it and whose values equal the un-fused graph's (compositeFusion: false); a lone
// pointwise op still forms no group; nodes the fusibility rules refuse (an untyped input) stay out.
// Values against PyTorch for the traced/scripted log_softmax, gelu and instance_norm graphs:
// tsfuser/test/torchscript-traced.test.ts.

import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { COMPOSITE_OPS, fuseGraph, guardFusionGroups, runGraph } from '../src/index.js';
import { graphOf, tensorType as T } from './helpers/ir-builder.js';

const SEED = 3606;

function randomTensor(seed: number, sizes: number[]): HostTensor {
  let s = seed;
  const next = (): number => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const n = sizes.reduce((a, b) => a * b, 1);
  return HostTensor.fromValues('Float', sizes, Array.from({ length: n }, () => next() * 4 - 2));
}

const F = T('Float', 3, 8);
const V = T('Float', 8);
const V3 = T('Float', 3);

/** name, graph inputs, body (the composite's output is %o), inputs. */
const CASES: [string, string[], string, HostTensor[]][] = [
  ['aten::log_softmax', [`%x : ${F}`], `%d : int = prim::Constant[value=-1]()\n%n : NoneType = prim::Constant()\n%o : ${F} = aten::log_softmax(%x, %d, %n)`, [randomTensor(SEED, [3, 8])]],
  ['aten::softmax', [`%x : ${F}`], `%d : int = prim::Constant[value=1]()\n%n : NoneType = prim::Constant()\n%o : ${F} = aten::softmax(%x, %d, %n)`, [randomTensor(SEED + 1, [3, 8])]],
  ['aten::gelu', [`%x : ${F}`], `%a : str = prim::Constant[value="tanh"]()\n%o : ${F} = aten::gelu(%x, %a)`, [randomTensor(SEED + 2, [3, 8])]],
  ['aten::silu', [`%x : ${F}`], `%o : ${F} = aten::silu(%x)`, [randomTensor(SEED + 3, [3, 8])]],
  ['aten::softplus', [`%x : ${F}`], `%b : int = prim::Constant[value=1]()\n%t : int = prim::Constant[value=20]()\n%o : ${F} = aten::softplus(%x, %b, %t)`, [randomTensor(SEED + 4, [3, 8])]],
  [
    'aten::layer_norm',
    [`%x : ${F}`, `%w : ${V}`, `%b : ${V}`],
    `%s : int = prim::Constant[value=8]()\n%l : int[] = prim::ListConstruct(%s)\n%e : float = prim::Constant[value=1.0000000000000001e-05]()\n%c : bool = prim::Constant[value=1]()\n%o : ${F} = aten::layer_norm(%x, %l, %w, %b, %e, %c)`,
    [randomTensor(SEED + 5, [3, 8]), randomTensor(SEED + 6, [8]), randomTensor(SEED + 7, [8])],
  ],
  ['aten::mean', [`%x : ${F}`], `%d : int = prim::Constant[value=1]()\n%l : int[] = prim::ListConstruct(%d)\n%k : bool = prim::Constant[value=0]()\n%n : NoneType = prim::Constant()\n%o : ${V3} = aten::mean(%x, %l, %k, %n)`, [randomTensor(SEED + 12, [3, 8])]],
  ['aten::var', [`%x : ${F}`], `%d : int = prim::Constant[value=1]()\n%l : int[] = prim::ListConstruct(%d)\n%u : bool = prim::Constant[value=1]()\n%k : bool = prim::Constant[value=1]()\n%o : ${T('Float', 3, 1)} = aten::var(%x, %l, %u, %k)`, [randomTensor(SEED + 13, [3, 8])]],
  ['aten::threshold_backward', [`%g : ${F}`, `%x : ${F}`], `%t : float = prim::Constant[value=0.]()\n%o : ${F} = aten::threshold_backward(%g, %x, %t)`, [randomTensor(SEED + 8, [3, 8]), randomTensor(SEED + 9, [3, 8])]],
  ['aten::tanh_backward', [`%g : ${F}`, `%y : ${F}`], `%o : ${F} = aten::tanh_backward(%g, %y)`, [randomTensor(SEED + 10, [3, 8]), randomTensor(SEED + 11, [3, 8])]],
];

function groups(g: ReturnType<typeof graphOf>): number {
  return g.nodes().filter((n) => n.kind === 'prim::CudaFusionGroup').length;
}

describe('a lone composite op is a fusion group of its own', () => {
  it.each(CASES)('%s', (op, inputs, body, values) => {
    expect(COMPOSITE_OPS.has(op)).toBe(true);
    const unfused = fuseGraph(graphOf(inputs, body, ['o']), { compositeFusion: false });
    expect(groups(unfused)).toBe(0);
    const fused = fuseGraph(graphOf(inputs, body, ['o']));
    expect(groups(fused)).toBe(1);
    // Only constants stay outside (the list normalized_shape joins the group).
    expect(fused.nodes().filter((n) => n.kind !== 'prim::CudaFusionGroup' && n.kind !== 'prim::Constant').map((n) => n.kind)).toEqual([]);
    guardFusionGroups(fused);
    const run = runGraph(fused, values);
    expect(run.groups[0]?.taken).toBe(1);
    const want = (runGraph(unfused, values).outputs[0] as HostTensor).toNumbers();
    const got = (run.outputs[0] as HostTensor).toNumbers();
    got.forEach((v, i) => expect(Math.abs(v - (want[i] as number)), `${op} element ${i} (seed ${SEED})`).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(want[i] as number))));
  });

  it('a lone pointwise op forms no group (nothing to fuse), as before', () => {
    expect(groups(fuseGraph(graphOf([`%x : ${F}`], `%o : ${F} = aten::relu(%x)`, ['o'])))).toBe(0);
  });

  it('a composite whose input has no type stays out (the guard could not check it)', () => {
    const g = fuseGraph(graphOf(['%x : Tensor'], `%d : int = prim::Constant[value=-1]()\n%n : NoneType = prim::Constant()\n%o : Tensor = aten::log_softmax(%x, %d, %n)`, ['o']));
    expect(groups(g)).toBe(0);
  });
});
