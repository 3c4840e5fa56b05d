// The legacy parser's ops added for issue 22 that the real-graph fixtures (tsfuser's
// torchscript-traced test, against PyTorch's outputs) do not reach, checked against their
// documented semantics computed here element by element: prim::add_optional, the prim::*_copy
// view forms, bitwise shifts, sum_to_size / _grad_sum_to_size edge cases, instance_norm from
// running stats, *_like dtypes, size arithmetic inside a fusion, and 0-dim tensor constants as
// scalars (no FullOp). Inputs come from a seeded generator; the seed is in every failure message.
import { describe, expect, it } from 'vitest';
import { HostTensor, evaluate, printFusion } from '@tsfuser/fusion-ir';
import { eliminateDeadCode } from '@tsfuser/jit-ir';
import { createPhiloxGenerator, fuseGraph, guardFusionGroups, jitOpSupport, lowerJitGraph, parseJitIR, runGraph, simplifySizeArithmetic } from '../src/index.js';
import { graphOf, tensorType as T } from './helpers/ir-builder.js';

const SEED = 2211;

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

function randomTensor(rng: () => number, sizes: number[], dtype: 'Float' | 'Int' = 'Float'): HostTensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  const values = Array.from({ length: n }, () => (dtype === 'Int' ? BigInt(Math.floor(rng() * 64)) : rng() * 2 - 1));
  return HostTensor.fromValues(dtype, sizes, values);
}

function close(actual: readonly number[], expected: readonly number[], what: string): void {
  expect(actual.length, `${what} (seed ${SEED})`).toBe(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i] as number;
    if (Math.abs(a - e) > 1e-5 + 1e-5 * Math.abs(e)) expect.fail(`${what}: element ${i} is ${a}, expected ${e} (seed ${SEED})`);
  });
}

function run1(body: string, inputs: string[], values: HostTensor[], out = 'o'): HostTensor {
  const fusion = parseJitIR(graphOf(inputs, body, [out]));
  return evaluate(fusion, values)[0] as HostTensor;
}

describe('legacy-parser ops (issue 22)', () => {
  const rng = seeded(SEED);
  const x = randomTensor(rng, [3, 4]);
  const b = randomTensor(rng, [4]);

  it('prim::add_optional: input + bias, or input when bias is None', () => {
    const withBias = run1('%o : Tensor = prim::add_optional(%x, %b)', [`%x : ${T('Float', 3, 4)}`, `%b : ${T('Float', 4)}`], [x, b]);
    close(withBias.toNumbers(), x.toNumbers().map((v, i) => v + (b.toNumbers()[i % 4] as number)), 'add_optional(x, b)');
    const none = run1('%n : NoneType = prim::Constant()\n%o : Tensor = prim::add_optional(%x, %n)', [`%x : ${T('Float', 3, 4)}`], [x]);
    close(none.toNumbers(), x.toNumbers(), 'add_optional(x, None)');
  });

  it('prim::reshape_copy / view_copy / squeeze_copy / unsqueeze_copy keep values, change the shape', () => {
    const shape = '%s : int[] = prim::Constant[value=[4, 3]]()';
    const r = run1(`${shape}\n%o : Tensor = prim::reshape_copy(%x, %s)`, [`%x : ${T('Float', 3, 4)}`], [x]);
    expect(r.sizes).toEqual([4, 3]);
    close(r.toNumbers(), x.toNumbers(), 'reshape_copy');
    const v = run1(`${shape}\n%o : Tensor = prim::view_copy(%x, %s)`, [`%x : ${T('Float', 3, 4)}`], [x]);
    expect(v.sizes).toEqual([4, 3]);
    const u = run1('%d : int = prim::Constant[value=1]()\n%o : Tensor = prim::unsqueeze_copy(%x, %d)', [`%x : ${T('Float', 3, 4)}`], [x]);
    expect(u.sizes).toEqual([3, 1, 4]);
    const y = HostTensor.fromValues('Float', [3, 1, 4], x.toNumbers());
    const sq = run1('%d : int = prim::Constant[value=1]()\n%o : Tensor = prim::squeeze_copy(%y, %d)', [`%y : ${T('Float', 3, 1, 4)}`], [y]);
    expect(sq.sizes).toEqual([3, 4]);
    close(sq.toNumbers(), x.toNumbers(), 'squeeze_copy.dim');
    const all = run1('%o : Tensor = prim::squeeze_copy(%y)', [`%y : ${T('Float', 3, 1, 4)}`], [y]);
    expect(all.sizes).toEqual([3, 4]);
  });

  it('bitwise_left_shift / bitwise_right_shift / __lshift__ / __rshift__ on int64', () => {
    const a = randomTensor(rng, [2, 3], 'Int');
    const s = HostTensor.fromValues('Int', [2, 3], [0n, 1n, 2n, 3n, 4n, 5n]);
    const ins = [`%a : ${T('Long', 2, 3)}`, `%s : ${T('Long', 2, 3)}`];
    const av = a.toNumbers();
    const sv = s.toNumbers();
    for (const op of ['aten::bitwise_left_shift', 'aten::__lshift__']) {
      close(run1(`%o : Tensor = ${op}(%a, %s)`, ins, [a, s]).toNumbers(), av.map((v, i) => v * 2 ** (sv[i] as number)), op);
    }
    for (const op of ['aten::bitwise_right_shift', 'aten::__rshift__']) {
      close(run1(`%o : Tensor = ${op}(%a, %s)`, ins, [a, s]).toNumbers(), av.map((v, i) => Math.floor(v / 2 ** (sv[i] as number))), op);
    }
  });

  it('sum_to_size keeps a dim the input already has as broadcast; _grad_sum_to_size(None) is the identity', () => {
    const z = randomTensor(rng, [2, 1, 4]);
    const o = run1('%s : int[] = prim::Constant[value=[1, 1, 4]]()\n%o : Tensor = aten::sum_to_size(%z, %s)', [`%z : ${T('Float', 2, 1, 4)}`], [z]);
    expect(o.sizes).toEqual([1, 1, 4]);
    const zv = z.toNumbers();
    close(o.toNumbers(), [0, 1, 2, 3].map((j) => (zv[j] as number) + (zv[4 + j] as number)), 'sum_to_size([1, 1, 4])');
    const lead = run1('%s : int[] = prim::Constant[value=[4]]()\n%o : Tensor = aten::_grad_sum_to_size(%z, %s)', [`%z : ${T('Float', 2, 1, 4)}`], [z]);
    expect(lead.sizes).toEqual([4]);
    const same = run1('%n : NoneType = prim::Constant()\n%o : Tensor = aten::_grad_sum_to_size(%z, %n)', [`%z : ${T('Float', 2, 1, 4)}`], [z]);
    close(same.toNumbers(), zv, '_grad_sum_to_size(None)');
  });

  it('instance_norm with use_input_stats=False normalizes with the running stats', () => {
    const xin = randomTensor(rng, [2, 3, 2]);
    const rm = randomTensor(rng, [3]);
    const rv = HostTensor.fromValues('Float', [3], [0.5, 1.5, 2.0]);
    const w = randomTensor(rng, [3]);
    const bias = randomTensor(rng, [3]);
    const body = `%f : bool = prim::Constant[value=0]()
%m : float = prim::Constant[value=0.1]()
%e : float = prim::Constant[value=1.0000000000000001e-05]()
%o : Tensor = aten::instance_norm(%x, %w, %b, %rm, %rv, %f, %m, %e, %f)`;
    const o = run1(body, [`%x : ${T('Float', 2, 3, 2)}`, `%w : ${T('Float', 3)}`, `%b : ${T('Float', 3)}`, `%rm : ${T('Float', 3)}`, `%rv : ${T('Float', 3)}`], [xin, w, bias, rm, rv]);
    const eps = Math.fround(1e-5);
    const expected = xin.toNumbers().map((v, i) => {
      const c = Math.floor(i / 2) % 3;
      const [m, s, g, h] = [rm, rv, w, bias].map((t) => t.toNumbers()[c] as number) as [number, number, number, number];
      return ((v - m) / Math.sqrt(s + eps)) * g + h;
    });
    close(o.toNumbers(), expected, 'instance_norm(use_input_stats=False)');
  });

  it('zeros_like / ones_like / full_like honour dtype and never read values (NaN input)', () => {
    const nan = HostTensor.fromValues('Float', [2, 2], [NaN, 1, -Infinity, 2]);
    const body = `%h : int = prim::Constant[value=5]()
%n : NoneType = prim::Constant()
%v : float = prim::Constant[value=2.5]()
%o : Tensor = aten::full_like(%x, %v, %h, %n, %n, %n, %n)`;
    const o = run1(body, [`%x : ${T('Float', 2, 2)}`], [nan]);
    expect(o.dtype).toBe('Half');
    close(o.toNumbers(), [2.5, 2.5, 2.5, 2.5], 'full_like(x, 2.5, dtype=half)');
    const z = run1('%n : NoneType = prim::Constant()\n%o : Tensor = aten::zeros_like(%x, %n, %n, %n, %n, %n)', [`%x : ${T('Float', 2, 2)}`], [nan]);
    close(z.toNumbers(), [0, 0, 0, 0], 'zeros_like(NaN input)');
  });

  it('size arithmetic inside a fusion: Int(NumToTensor(size)), __getitem__, len', () => {
    const body = `%m1 : int = prim::Constant[value=-1]()
%sz : int[] = aten::size(%x)
%last : int = aten::__getitem__(%sz, %m1)
%t : Tensor = prim::NumToTensor(%last)
%i : int = aten::Int(%t)
%r : int = aten::len(%sz)
%one : int = prim::Constant[value=1]()
%a : Tensor = aten::mul(%x, %i)
%o : Tensor = aten::add(%a, %r, %one)`;
    const o = run1(body, [`%x : ${T('Float', 3, 4)}`], [x]);
    close(o.toNumbers(), x.toNumbers().map((v) => v * 4 + 2), 'x * size[-1] + len(size)');
  });

  it('a traced 0-dim tensor constant is a scalar of the fusion, not a FullOp', () => {
    const body = `%c : Double(requires_grad=0, device=cpu) = prim::Constant[value={0.125}]()
%o : Tensor = aten::mul(%x, %c)`;
    const fusion = parseJitIR(graphOf([`%x : ${T('Float', 3, 4)}`], body, ['o']));
    expect(printFusion(fusion)).not.toContain('full(');
    const o = evaluate(fusion, [x])[0] as HostTensor;
    expect(o.dtype).toBe('Float');
    close(o.toNumbers(), x.toNumbers().map((v) => v * 0.125), 'x * {0.125}');
  });

  it('simplifySizeArithmetic: the traced and the scripted size chain become aten::size(x, d)', () => {
    const traced = graphOf(
      [`%x : ${T('Float', 3, 4)}`],
      `%one : int = prim::Constant[value=1]()
%s : int = aten::size(%x, %one)
%t : Long(device=cpu) = prim::NumToTensor(%s)
%i : int = aten::Int(%t)
%l : int[] = prim::ListConstruct(%i)`,
      ['l'],
    );
    const scripted = graphOf(
      [`%x : ${T('Float', 3, 4)}`],
      `%m1 : int = prim::Constant[value=-1]()
%sz : int[] = aten::size(%x)
%i : int = aten::__getitem__(%sz, %m1)
%r : int = aten::len(%sz)
%l : int[] = prim::ListConstruct(%i, %r)`,
      ['l'],
    );
    expect(simplifySizeArithmetic(traced)).toBe(1);
    expect(simplifySizeArithmetic(scripted)).toBe(2);
    for (const g of [traced, scripted]) {
      eliminateDeadCode(g);
      const kinds = g.nodes().map((n) => n.kind);
      expect(kinds).not.toContain('aten::Int');
      expect(kinds).not.toContain('aten::__getitem__');
      expect(kinds).not.toContain('aten::len');
      const list = g.outputs[0]?.node;
      expect(list?.input(0).node.kind).toBe('aten::size');
      expect(list?.input(0).node.inputs.length).toBe(2);
    }
    expect(runGraph(scripted, [x]).outputs).toEqual([[4, 2]]);
  });

  it('a lone log_softmax (a composite) is a group by default (compositeFusion: false turns that off); a lone relu only with singletonFusion', () => {
    const make = (): ReturnType<typeof graphOf> =>
      graphOf(
        [`%x : ${T('Float', 3, 4)}`],
        `%d : int = prim::Constant[value=-1]()
%n : NoneType = prim::Constant()
%o : ${T('Float', 3, 4)} = aten::log_softmax(%x, %d, %n)`,
        ['o'],
      );
    const groups = (g: ReturnType<typeof graphOf>): number => g.nodes().filter((n) => n.kind === 'prim::CudaFusionGroup').length;
    expect(groups(fuseGraph(make(), { compositeFusion: false }))).toBe(0);
    expect(groups(fuseGraph(make(), { compositeFusion: false, singletonFusion: true }))).toBe(1);
    const relu = (): ReturnType<typeof graphOf> => graphOf([`%x : ${T('Float', 3, 4)}`], `%o : ${T('Float', 3, 4)} = aten::relu(%x)`, ['o']);
    expect(groups(fuseGraph(relu()))).toBe(0);
    expect(groups(fuseGraph(relu(), { singletonFusion: true }))).toBe(1);
    const single = fuseGraph(make());
    expect(groups(single)).toBe(1);
    guardFusionGroups(single);
    const r = runGraph(single, [x]);
    expect(r.groups[0]?.taken).toBe(1);
    const xv = x.toNumbers();
    const expected = xv.map((v, i) => {
      const row = xv.slice(Math.floor(i / 4) * 4, Math.floor(i / 4) * 4 + 4);
      const m = Math.max(...row);
      return v - m - Math.log(row.reduce((a, c) => a + Math.exp(c - m), 0));
    });
    close((r.outputs[0] as HostTensor).toNumbers(), expected, 'log_softmax in a singleton group');
  });

  it('runGraph evaluates traced size chains on the host (NumToTensor → Int)', () => {
    const g = graphOf(
      [`%x : ${T('Float', 3, 4)}`],
      `%one : int = prim::Constant[value=1]()
%s : int = aten::size(%x, %one)
%t : Long(device=cpu) = prim::NumToTensor(%s)
%i : int = aten::Int(%t)`,
      ['i'],
    );
    expect(runGraph(g, [x]).outputs).toEqual([4]);
  });

  it('_batch_norm_impl_index_backward computes what native_batch_norm_backward computes (as aten does for impl 0 and 1)', () => {
    const inputs = [`%x : ${T('Float', 2, 3, 4)}`, `%g : ${T('Float', 2, 3, 4)}`, `%w : ${T('Float', 3)}`, `%sm : ${T('Float', 3)}`, `%si : ${T('Float', 3)}`, `%res : ${T('Float', 0)}`];
    const consts = `%t : bool = prim::Constant[value=1]()
%n : NoneType = prim::Constant()
%e : float = prim::Constant[value=1.0000000000000001e-05]()
%mask : bool[] = prim::ListConstruct(%t, %t, %t)
%zero : int = prim::Constant[value=0]()`;
    const impl = parseJitIR(graphOf(inputs, `${consts}\n%a : Tensor, %b : Tensor, %c : Tensor = aten::_batch_norm_impl_index_backward(%zero, %x, %g, %w, %n, %n, %sm, %si, %t, %e, %mask, %res)`, ['a', 'b', 'c']));
    const native = parseJitIR(graphOf(inputs, `${consts}\n%a : Tensor, %b : Tensor, %c : Tensor = aten::native_batch_norm_backward(%g, %x, %w, %n, %n, %sm, %si, %t, %e, %mask)`, ['a', 'b', 'c']));
    const xs = randomTensor(rng, [2, 3, 4]);
    const gs = randomTensor(rng, [2, 3, 4]);
    const ws = randomTensor(rng, [3]);
    const sm = randomTensor(rng, [3]);
    const si = HostTensor.fromValues('Float', [3], [0.5, 1.25, 2]);
    const res = HostTensor.fromValues('Float', [0], []);
    const a = evaluate(impl, [xs, gs, ws, sm, si, res]) as HostTensor[];
    const b = evaluate(native, [xs, gs, ws, sm, si, res]) as HostTensor[];
    expect(a.length).toBe(3);
    a.forEach((t, i) => close(t.toNumbers(), (b[i] as HostTensor).toNumbers(), `_batch_norm_impl_index_backward output ${i}`));
  });

  it('tanh_backward(grad, y) = grad * (1 - y²)', () => {
    const o = run1('%o : Tensor = aten::tanh_backward(%x, %y)', [`%x : ${T('Float', 4)}`, `%y : ${T('Float', 4)}`], [b, b]);
    const bv = b.toNumbers();
    close(o.toNumbers(), bv.map((g) => g * (1 - g * g)), 'tanh_backward');
  });

  it('the RNG ops lower (random.ts); instance_norm updating running stats is refused with a reason', () => {
    const g = graphOf(
      [`%x : ${T('Float', 2, 3, 2)}`, `%rm : ${T('Float', 3)}`, `%rv : ${T('Float', 3)}`, `%g : ${T('Float', 2, 3, 2)}`, `%mask : ${T('Bool', 2, 3, 2)}`],
      `%t : bool = prim::Constant[value=1]()
%n : NoneType = prim::Constant()
%m : float = prim::Constant[value=0.1]()
%e : float = prim::Constant[value=1.0000000000000001e-05]()
%o : Tensor = aten::instance_norm(%x, %n, %n, %rm, %rv, %t, %m, %e, %t)
%d : Tensor = aten::native_dropout_backward(%g, %mask, %m)
%r : Tensor = aten::rand_like(%x, %n, %n, %n, %n, %n)`,
      ['o', 'd', 'r'],
    );
    const [norm, dropBack, rand] = g.nodes().filter((n) => n.kind !== 'prim::Constant');
    const reason = (n: typeof norm): string => {
      const s = n === undefined ? { supported: true as const } : jitOpSupport(n);
      return s.supported ? 'supported' : s.reason;
    };
    expect(reason(norm)).toContain('updates running stats in place');
    expect(reason(dropBack)).toBe('supported');
    expect(reason(rand)).toBe('supported');
  });
});

// Random ops (src/parse-jit-ir/random.ts) against PyTorch's definitions: native_dropout's mask is
// rand < 1 − p and its output input · mask / (1 − p); train=False and p = 0 draw nothing;
// native_dropout_backward is grad · mask · scale; rand_like is uniform in [0, 1) of the input's
// (or the given) floating dtype. The numbers themselves are fusion-ir's Philox (not PyTorch's).
describe('legacy-parser random ops: dropout, native_dropout, native_dropout_backward, rand_like', () => {
  const X = `%x : ${T('Float', 64, 256)}`;
  const rng = seeded(SEED + 1);
  const x = randomTensor(rng, [64, 256]);

  it('native_dropout: Bool mask with about 1 − p kept, output = x · mask / (1 − p), a seed replays', () => {
    const g = graphOf([X], `%p : float = prim::Constant[value=0.25]()\n%t : bool = prim::Constant[value=1]()\n%o : Tensor, %m : Tensor = aten::native_dropout(%x, %p, %t)`, ['o', 'm']);
    const generator = createPhiloxGenerator(11n);
    const [o, m] = runGraph(g, [x], { generator }).outputs as HostTensor[];
    expect(m?.dtype).toBe('Bool');
    const mask = (m as HostTensor).toNumbers();
    const xs = x.toNumbers();
    const expected = xs.map((v, i) => (mask[i] === 1 ? Math.fround(Math.fround(v) * Math.fround(1 / 0.75)) : 0));
    close((o as HostTensor).toNumbers(), expected, 'native_dropout output');
    const kept = mask.filter((v) => v === 1).length / mask.length;
    expect(Math.abs(kept - 0.75), `kept ${kept} (seed ${SEED})`).toBeLessThan(5 * Math.sqrt((0.25 * 0.75) / mask.length));
    expect(generator.offset).toBe(1n);
    const again = runGraph(g, [x], { generator: createPhiloxGenerator(11n) }).outputs[1] as HostTensor;
    expect(again.toNumbers()).toEqual(mask);
    const next = runGraph(g, [x], { generator }).outputs[1] as HostTensor;
    expect(next.toNumbers()).not.toEqual(mask);
  });

  it('native_dropout with train=False and dropout with p = 0 return the input and draw nothing', () => {
    const g = graphOf(
      [X],
      `%p : float = prim::Constant[value=0.5]()\n%z : float = prim::Constant[value=0.]()\n%f : bool = prim::Constant[value=0]()\n%t : bool = prim::Constant[value=1]()\n%o : Tensor, %m : Tensor = aten::native_dropout(%x, %p, %f)\n%d : Tensor = aten::dropout(%x, %z, %t)`,
      ['o', 'm', 'd'],
    );
    expect(lowerJitGraph(g).rng).toBeNull();
    const generator = createPhiloxGenerator(3n);
    const [o, m, d] = runGraph(g, [x], { generator }).outputs as HostTensor[];
    expect((o as HostTensor).toNumbers()).toEqual(x.toNumbers());
    expect((d as HostTensor).toNumbers()).toEqual(x.toNumbers());
    expect((m as HostTensor).toNumbers().every((v) => v === 1)).toBe(true);
    expect(generator.offset).toBe(0n);
  });

  it('two random ops in one fusion draw at offset and offset + 1 (two extra Int inputs)', () => {
    const g = graphOf([X], `%p : float = prim::Constant[value=0.5]()\n%t : bool = prim::Constant[value=1]()\n%a : Tensor = aten::dropout(%x, %p, %t)\n%n : NoneType = prim::Constant()\n%r : Tensor = aten::rand_like(%x, %n, %n, %n, %n, %n)`, ['a', 'r']);
    const lowering = lowerJitGraph(g);
    expect(lowering.rng).toEqual({ draws: 2 });
    expect(lowering.fusion.inputs.length).toBe(3);
    expect(lowering.fusion.inputs.slice(1).map((v) => (v.kind === 'scalar' ? v.dtype : v.kind))).toEqual(['Int', 'Int']);
    const generator = createPhiloxGenerator(5n);
    const [, r] = runGraph(g, [x], { generator }).outputs as HostTensor[];
    const u = (r as HostTensor).toNumbers();
    expect(u.every((v) => v >= 0 && v < 1)).toBe(true);
    const mean = u.reduce((a, b) => a + b, 0) / u.length;
    expect(Math.abs(mean - 0.5), `rand_like mean ${mean}`).toBeLessThan(5 * Math.sqrt(1 / 12 / u.length));
    expect(generator.offset).toBe(2n);
  });

  it('native_dropout_backward is grad · mask · scale; rand_like keeps or takes the dtype', () => {
    const m = HostTensor.fromValues('Bool', [64, 256], x.toNumbers().map((v) => v > 0));
    const g = graphOf([X, `%m : ${T('Bool', 64, 256)}`], `%s : float = prim::Constant[value=1.3333333333333333]()\n%o : Tensor = aten::native_dropout_backward(%x, %m, %s)\n%h : int = prim::Constant[value=5]()\n%n : NoneType = prim::Constant()\n%r : Tensor = aten::rand_like(%x, %h, %n, %n, %n, %n)`, ['o', 'r']);
    const [o, r] = runGraph(g, [x, m]).outputs as HostTensor[];
    close((o as HostTensor).toNumbers(), x.toNumbers().map((v) => (v > 0 ? Math.fround(Math.fround(v) * Math.fround(4 / 3)) : 0)), 'native_dropout_backward');
    expect(r?.dtype).toBe('Half');
  });

  it('bad arguments: p outside [0, 1], rand_like of an Int tensor without a dtype', () => {
    const bad = graphOf([X], `%p : float = prim::Constant[value=1.5]()\n%t : bool = prim::Constant[value=1]()\n%o : Tensor = aten::dropout(%x, %p, %t)`, ['o']);
    expect(() => parseJitIR(bad)).toThrow(/aten::dropout: dropout probability has to be between 0 and 1, but got 1.5/);
    const int = graphOf([`%i : ${T('Long', 4)}`], `%n : NoneType = prim::Constant()\n%r : Tensor = aten::rand_like(%i, %n, %n, %n, %n, %n)`, ['r']);
    expect(() => parseJitIR(int)).toThrow(/rand_like of a Int tensor needs a floating dtype/);
  });
});
