// sdpfa_fwd / sdpfa_bwd (SdpaFwdOp / SdpaBwdOp) in the reference evaluator against PyTorch
// (test-fixtures/torch-values/attention.json, made by tools/torch-values/matmul_attention_values.py,
// seed in the file: float64 F.scaled_dot_product_attention and autograd on the rounded inputs):
// causal masks with L = S, L < S, L > S (top-left aligned), bias, boolean masks broadcast over
// heads with a fully masked row, grouped-query and multi-query attention, a 5-D batch, odd
// sizes; dropout against an independent rand() of the same Philox stream; the ops' shapes,
// defaults, errors, printed form and clone.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  cloneFusion,
  evaluate,
  EvaluationError,
  Fusion,
  FusionIrError,
  HostTensor,
  makeTensor,
  matmul,
  mul,
  permute,
  printMath,
  rand,
  sdpfaBwd,
  sdpfaFwd,
  softmax,
  type DataType,
  type TensorView,
} from '../src/index.js';

type Json = number | string | boolean;
interface Case {
  name: string;
  dtype: DataType;
  batch: number[];
  h: number;
  hkv: number;
  l: number;
  s: number;
  e: number;
  ev: number;
  causal: boolean;
  scale: number | null;
  query: Json[];
  key: Json[];
  value: Json[];
  gradOutput: Json[];
  output: Json[];
  logsumexp: Json[];
  gradQuery: Json[];
  /** PyTorch's flash backward op on the saved output rounded to the inputs' dtype (D from that output); absent where its CPU kernel cannot run (bias, mask, Ev ≠ E). */
  flashGradQuery?: Json[];
  flashGradKey?: Json[];
  flashGradValue?: Json[];
  gradKey: Json[];
  gradValue: Json[];
  probs: Json[];
  bias?: { shape: number[]; values: Json[] };
  mask?: { shape: number[]; values: Json[] };
}

const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/attention.json', import.meta.url)), 'utf8')) as {
  generator: string;
  cases: Case[];
};
const num = (v: Json): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v));
const EPS: Partial<Record<DataType, number>> = { Float: 2 ** -23, Half: 2 ** -10, BFloat16: 2 ** -7 };

interface Built {
  fusion: Fusion;
  inputs: HostTensor[];
}

function tensorInput(f: Fusion, dtype: DataType, shape: readonly number[], symbolic = true): TensorView {
  const t = makeTensor(f, { shape: symbolic ? shape.map((s) => (s === 1 ? 1 : -1)) : shape, dtype });
  f.addInput(t);
  return t;
}

/** sdpfa_fwd, then sdpfa_bwd from its outputs and PyTorch's grad_output. */
function build(c: Case, dropoutP = 0, rng: { rngSeed: number; rngOffset: number } | undefined = undefined): Built {
  const f = new Fusion();
  const qShape = [...c.batch, c.h, c.l, c.e];
  const kShape = [...c.batch, c.hkv, c.s, c.e];
  const vShape = [...c.batch, c.hkv, c.s, c.ev];
  const q = tensorInput(f, c.dtype, qShape);
  const k = tensorInput(f, c.dtype, kShape);
  const v = tensorInput(f, c.dtype, vShape);
  const inputs = [HostTensor.fromValues(c.dtype, qShape, c.query.map(num)), HostTensor.fromValues(c.dtype, kShape, c.key.map(num)), HostTensor.fromValues(c.dtype, vShape, c.value.map(num))];
  let bias: TensorView | null = null;
  let mask: TensorView | null = null;
  if (c.bias) {
    bias = tensorInput(f, c.dtype, c.bias.shape);
    inputs.push(HostTensor.fromValues(c.dtype, c.bias.shape, c.bias.values.map(num)));
  }
  if (c.mask) {
    mask = tensorInput(f, 'Bool', c.mask.shape);
    inputs.push(HostTensor.fromValues('Bool', c.mask.shape, c.mask.values.map((x) => x === true)));
  }
  const fwd = sdpfaFwd(q, k, v, { bias, mask, dropoutP, isCausal: c.causal, scale: c.scale, ...(rng ? { rng } : {}) });
  const go = tensorInput(f, c.dtype, [...c.batch, c.h, c.l, c.ev]);
  inputs.push(HostTensor.fromValues(c.dtype, [...c.batch, c.h, c.l, c.ev], c.gradOutput.map(num)));
  f.addOutput(fwd.output);
  f.addOutput(fwd.logsumexp);
  f.addOutput(fwd.philoxSeed);
  if (bias === null && mask === null) {
    const g = sdpfaBwd(go, q, k, v, fwd.output, fwd.logsumexp, dropoutP, c.causal, fwd.philoxSeed, fwd.philoxOffset, c.scale);
    f.addOutput(g.gradQuery);
    f.addOutput(g.gradKey);
    f.addOutput(g.gradValue);
  }
  return { fusion: f, inputs };
}

/** Element-wise: |got − want| ≤ eps·|want| + eps·2⁻⁴·max|want| (one rounding of a float64 value, and its neighbours' scale). */
function expectClose(what: string, got: HostTensor, want: readonly Json[], eps: number, scaleOf: readonly Json[] = want): void {
  const g = got.toNumbers();
  const w = want.map(num);
  expect(g.length, what).toBe(w.length);
  const scale = Math.max(1e-30, ...scaleOf.map(num).filter(Number.isFinite).map(Math.abs));
  g.forEach((x, i) => {
    const y = w[i] as number;
    if (!Number.isFinite(y)) {
      expect(x, `${what}[${i}]`).toBe(y);
      return;
    }
    const tol = eps * Math.abs(y) + eps * scale * 2 ** -4;
    if (!(Math.abs(x - y) <= tol)) throw new Error(`${what}[${i}] = ${x}, PyTorch ${y} (tol ${tol}) — ${fixture.generator}`);
  });
}

describe('sdpfa_fwd / sdpfa_bwd against PyTorch', () => {
  for (const c of fixture.cases) {
    it(`${c.name}: output, logsumexp${c.bias || c.mask ? '' : ', grad_query, grad_key, grad_value'}`, () => {
      const { fusion, inputs } = build(c);
      const outs = evaluate(fusion, inputs) as HostTensor[];
      const eps = EPS[c.dtype] as number;
      expectClose(`${c.name} output`, outs[0] as HostTensor, c.output, eps);
      expect(outs[1]?.dtype).toBe('Float');
      expectClose(`${c.name} logsumexp`, outs[1] as HostTensor, c.logsumexp, 2 ** -22);
      expect(outs[2]?.toNumbers()).toEqual([0, 0]);
      if (outs.length > 3) {
        // The backward reads the Float logsumexp, as the flash backward does: its rounding
        // (2⁻²⁴ of |lse|) enters P and, through dS = P∘(dP − D), every gradient at the scale of
        // the largest one (a 1-key row's exact gradient 0 comes out as ±1e-9).
        // sdpfa_bwd takes D = rowsum(dO ∘ O) from its output operand (the forward's output, rounded
        // to the inputs' dtype here), as PyTorch's flash backward op: compared with that op's float64
        // values where its CPU kernel runs, else with autograd of the float64 forward.
        const gq = c.flashGradQuery ?? c.gradQuery;
        const gk = c.flashGradKey ?? c.gradKey;
        const gv = c.flashGradValue ?? c.gradValue;
        const all = [...gq, ...gk, ...gv];
        const tol = Math.max(eps, 2 ** -16);
        expectClose(`${c.name} grad_query`, outs[3] as HostTensor, gq, tol, all);
        expectClose(`${c.name} grad_key`, outs[4] as HostTensor, gk, tol, all);
        expectClose(`${c.name} grad_value`, outs[5] as HostTensor, gv, tol, all);
      }
    });
  }
  it('a fully masked row gives output 0 and logsumexp −∞, as PyTorch', () => {
    const c = fixture.cases.find((x) => x.name === 'bf16_mask_fully_masked_row') as Case;
    const { fusion, inputs } = build(c);
    const [out, lse] = evaluate(fusion, inputs) as HostTensor[];
    const row = 1; // mask[0, :, 1, :] is all false
    expect((out as HostTensor).toNumbers().slice(row * c.ev, (row + 1) * c.ev)).toEqual(new Array<number>(c.ev).fill(0));
    expect((lse as HostTensor).toNumbers()[row]).toBe(-Infinity);
  });
});

describe('dropout: the Philox stream of rand() over [N, H, L, S]', () => {
  const c = fixture.cases.find((x) => x.name === 'f32_scale_ev') as Case;
  for (const [p, rng] of [[0.3, undefined], [0.75, undefined], [0.5, { rngSeed: 20261201, rngOffset: 3 }]] as const) {
    it(`p = ${p}${rng ? `, rng_seed ${rng.rngSeed}, rng_offset ${rng.rngOffset}` : ''}: kept iff uniformFloat < float32(1 − p), scaled by float32(1/(1 − p)); the backward uses the same mask`, () => {
      const { fusion, inputs } = build(c, p, rng);
      const outs = evaluate(fusion, inputs) as HostTensor[];
      // The same numbers from an independent RNG op: the given seed and offset, else seed 0,
      // offset 0 (the first random expr of its fusion).
      const g = new Fusion();
      const shape = [...c.batch, c.h, c.l, c.s];
      g.addOutput(rand(g, shape, 'Float', rng ?? { rngSeed: 0, rngOffset: 0 }));
      expect((outs[2] as HostTensor).toNumbers()).toEqual(rng ? [rng.rngSeed, rng.rngOffset] : [0, 0]);
      const u = (evaluate(g, [])[0] as HostTensor).toNumbers();
      const z = u.map((x) => (x < Math.fround(1 - p) ? Math.fround(1 / (1 - p)) : 0));
      expect(z.some((x) => x === 0) && z.some((x) => x !== 0)).toBe(true);
      const probs = c.probs.map(num);
      const value = c.value.map(num);
      const go = c.gradOutput.map(num);
      const rows = c.batch.reduce((a, b) => a * b, 1) * c.h * c.l;
      const wantOut: number[] = [];
      const wantDv = new Array<number>(value.length).fill(0);
      for (let r = 0; r < rows; r += 1) {
        const headBase = Math.floor(r / c.l) * c.s; // hkv = h here
        for (let e = 0; e < c.ev; e += 1) {
          let acc = 0;
          for (let s = 0; s < c.s; s += 1) acc += (probs[r * c.s + s] as number) * (z[r * c.s + s] as number) * (value[(headBase + s) * c.ev + e] as number);
          wantOut.push(acc);
        }
        for (let s = 0; s < c.s; s += 1) {
          const w = (probs[r * c.s + s] as number) * (z[r * c.s + s] as number);
          for (let e = 0; e < c.ev; e += 1) wantDv[(headBase + s) * c.ev + e] = (wantDv[(headBase + s) * c.ev + e] as number) + w * (go[r * c.ev + e] as number);
        }
      }
      expectClose('dropout output', outs[0] as HostTensor, wantOut, 2 ** -22);
      expectClose('logsumexp is of the undropped scores', outs[1] as HostTensor, c.logsumexp, 2 ** -22);
      expectClose('dropout grad_value', outs[5] as HostTensor, wantDv, 2 ** -20);
    });
  }
});

describe('sdpfa ops: shapes, defaults, errors, printing, clone', () => {
  const qkv = (f: Fusion, dtype: DataType, h = 4, hkv = 4): [TensorView, TensorView, TensorView] => [
    tensorInput(f, dtype, [2, h, 7, 8], false),
    tensorInput(f, dtype, [2, hkv, 9, 8], false),
    tensorInput(f, dtype, [2, hkv, 9, 16], false),
  ];
  it('outputs [N, H, L, Ev] in the query dtype, logsumexp Float [N, H, L], philox UInt64 [2] and []', () => {
    const f = new Fusion();
    const [q, k, v] = qkv(f, 'BFloat16', 8, 2);
    const r = sdpfaFwd(q, k, v);
    expect([r.output.dtype, r.logsumexp.dtype, r.philoxSeed.dtype, r.philoxOffset.dtype]).toEqual(['BFloat16', 'Float', 'UInt64', 'UInt64']);
    expect([r.output.rank(), r.logsumexp.rank(), r.philoxSeed.rank(), r.philoxOffset.rank()]).toEqual([4, 3, 1, 0]);
    const def = r.output.definition;
    expect(def?.kind).toBe('SdpaFwdOp');
    if (def?.kind === 'SdpaFwdOp') {
      expect(def.scale()).toBeNull(); // 1/√E at evaluation
      expect(def.dropoutP().constNumber()).toBe(0);
      expect(def.isCausal().value).toBe(false);
    }
  });
  it('an Int constant dropout_p or scale (a JS 0 from the frontend) stays a Double constant, checked and kernel-selectable', () => {
    const f = new Fusion();
    const [q, k, v] = qkv(f, 'BFloat16');
    const def = sdpfaFwd(q, k, v, { dropoutP: f.constant(0, 'Int'), scale: f.constant(2, 'Int') }).output.definition;
    expect(def?.kind).toBe('SdpaFwdOp');
    if (def?.kind === 'SdpaFwdOp') {
      expect([def.dropoutP().dtype, def.dropoutP().value]).toEqual(['Double', 0]);
      expect([def.scale()?.dtype, def.scale()?.value]).toEqual(['Double', 2]);
    }
    expect(() => sdpfaFwd(q, k, v, { dropoutP: f.constant(2, 'Int') })).toThrow('dropout probability has to be between 0 and 1, but got 2');
  });
  it('refuses bad calls with one clear error', () => {
    const f = new Fusion();
    const [q, k, v] = qkv(f, 'Half', 6, 4);
    expect(() => sdpfaFwd(q, k, v)).toThrow('the number of query heads (6) must be a multiple of the number of key/value heads (4)');
    const [q2, k2, v2] = qkv(f, 'Half');
    expect(() => sdpfaFwd(q2, k2, v2, { mask: tensorInput(f, 'Float', [1, 1, 7, 9], false) })).toThrow(/mask .* must be Bool/);
    expect(() => sdpfaFwd(q2, k2, v2, { bias: tensorInput(f, 'Float', [1, 1, 7, 9], false) })).toThrow(/bias .* must have the query's dtype Half/);
    expect(() => sdpfaFwd(q2, k2, v2, { bias: tensorInput(f, 'Half', [1, 1, 7, 5], false) })).toThrow(/does not broadcast .* dim 3 is 5, expected 1 or 9/);
    expect(() => sdpfaFwd(q2, k2, v2, { dropoutP: 1.5 })).toThrow('dropout probability has to be between 0 and 1, but got 1.5');
    expect(() => sdpfaFwd(q2, k2, tensorInput(f, 'BFloat16', [2, 4, 9, 16], false))).toThrow(FusionIrError);
    const q3 = tensorInput(f, 'Half', [4, 7, 8], false);
    expect(() => sdpfaFwd(q3, q3, q3)).toThrow('must be at least 4-D');
  });
  it('symbolic sizes that do not fit are one EvaluationError naming them', () => {
    const f = new Fusion();
    const q = tensorInput(f, 'Float', [2, 4, 7, 8]);
    const k = tensorInput(f, 'Float', [2, 4, 9, 8]);
    f.addOutput(sdpfaFwd(q, k, k).output);
    const z = (s: number[]): HostTensor => HostTensor.fromValues('Float', s, new Array<number>(s.reduce((x, y) => x * y, 1)).fill(0));
    expect(() => evaluate(f, [z([2, 4, 7, 8]), z([2, 4, 9, 6])])).toThrow(EvaluationError);
    expect(() => evaluate(f, [z([2, 4, 7, 8]), z([2, 4, 9, 6])])).toThrow('the head dim E of query (8) and key (6) must match');
    expect(() => evaluate(f, [z([2, 6, 7, 8]), z([2, 4, 9, 8])])).toThrow('the number of query heads (6) must be a multiple of the number of key/value heads (4)');
  });
  it("prints as nvFuser's SdpaFwdOp / SdpaBwdOp (composite_nodes.cpp toString, spacing included)", () => {
    const f = new Fusion();
    const [q, k, v] = qkv(f, 'BFloat16');
    const r = sdpfaFwd(q, k, v, { isCausal: true, scale: 0.125 });
    f.addOutput(r.output);
    const g = sdpfaBwd(r.output, q, k, v, r.output, r.logsumexp, 0.1, true, r.philoxSeed, r.philoxOffset, 0.5);
    f.addOutput(g.gradQuery);
    expect(printMath(f)).toBe(
      [
        '%kernel_math {',
        'T3_g[ iS12{2}, iS13{4}, iS14{7}, iS15{16} ],',
        'T4_l[ iS16{2}, iS17{4}, iS18{7} ],',
        'T5_l[ iS19{2} ],',
        'T6_l[ 0 ]',
        '   = sdpa(T0_g[ iS0{2}, iS1{4}, iS2{7}, iS3{8} ],',
        '            T1_g[ iS4{2}, iS5{4}, iS6{9}, iS7{8} ],',
        '            T2_g[ iS8{2}, iS9{4}, iS10{9}, iS11{16} ],',
        '            dropout_p = double(0),',
        '            is_causal=true,',
        '            scale=double(0.125),',
        '  )',
        'T7_g[ iS20{2}, iS21{4}, iS22{7}, iS23{8} ],',
        'T8_l[ iS24{2}, iS25{4}, iS26{9}, iS27{8} ],',
        'T9_l[ iS28{2}, iS29{4}, iS30{9}, iS31{16} ]',
        '   = sdpa_bwd(T3_g[ iS12{2}, iS13{4}, iS14{7}, iS15{16} ],',
        '            T0_g[ iS0{2}, iS1{4}, iS2{7}, iS3{8} ],',
        '            T1_g[ iS4{2}, iS5{4}, iS6{9}, iS7{8} ],',
        '            T2_g[ iS8{2}, iS9{4}, iS10{9}, iS11{16} ],',
        '            T3_g[ iS12{2}, iS13{4}, iS14{7}, iS15{16} ],',
        '            logsum_exp = T4_l[ iS16{2}, iS17{4}, iS18{7} ],',
        '            dropout_p = double(0.10000000000000001),',
        '            is_causal = true,',
        '            philox_seed = T5_l[ iS19{2} ],',
        '            philox_offset = T6_l[ 0 ],',
        '  ,',
        '          scale = double(0.5)  )',
        '}',
        '',
      ].join('\n'),
    );
  });
  it('a random op after sdpfa_fwd draws from the next offset', () => {
    const f = new Fusion();
    const [q, k, v] = qkv(f, 'Float');
    const r = sdpfaFwd(q, k, v, { dropoutP: 0.1 });
    const u = rand(f, [4], 'Float');
    const def = u.definition;
    expect(def?.kind === 'RNGOp' ? def.offset.constNumber() : null).toBe(1);
    const d = r.output.definition;
    expect(d?.kind === 'SdpaFwdOp' ? [d.rngSeed().constNumber(), d.rngOffset().constNumber()] : null).toEqual([0, 0]);
    expect(() => sdpfaFwd(q, k, v, { rng: { rngSeed: 1 } })).toThrow('rng_seed and rng_offset must be provided together');
  });
  it('a cloned fusion evaluates to the same values', () => {
    const c = fixture.cases.find((x) => x.name === 'bf16_gqa') as Case;
    const { fusion, inputs } = build(c, 0.2);
    const a = evaluate(fusion, inputs) as HostTensor[];
    const b = evaluate(cloneFusion(fusion).fusion, inputs) as HostTensor[];
    a.forEach((t, i) => expect((b[i] as HostTensor).toNumbers()).toEqual(t.toNumbers()));
  });
});

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('random differential: sdpfa_fwd against matmul → softmax → matmul', () => {
  const seed = Number(process.env.TSFUSER_SEED ?? Math.floor(Math.random() * 2 ** 31));
  it(`20 random shapes agree in Double (seed ${seed}; replay with TSFUSER_SEED=${seed})`, () => {
    const r = mulberry32(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
    for (let t = 0; t < 20; t += 1) {
      const [n, h, l, s, e, ev] = [pick([1, 2]), pick([1, 3]), pick([1, 7, 16]), pick([1, 5, 33]), pick([1, 4, 8]), pick([2, 8])];
      const scale = pick([null, 0.5]);
      const f = new Fusion();
      const q = tensorInput(f, 'Double', [n, h, l, e]);
      const k = tensorInput(f, 'Double', [n, h, s, e]);
      const v = tensorInput(f, 'Double', [n, h, s, ev]);
      f.addOutput(sdpfaFwd(q, k, v, { scale }).output);
      const scores = mul(matmul(q, permute(k, [0, 1, 3, 2])), scale ?? 1 / Math.sqrt(e));
      f.addOutput(matmul(softmax(scores, -1), v));
      const values = (shape: number[]): HostTensor => HostTensor.fromValues('Double', shape, Array.from({ length: shape.reduce((x, y) => x * y, 1) }, () => r() * 4 - 2));
      const [got, want] = evaluate(f, [values([n, h, l, e]), values([n, h, s, e]), values([n, h, s, ev])]) as HostTensor[];
      const g = (got as HostTensor).toNumbers();
      (want as HostTensor).toNumbers().forEach((w, i) => expect(Math.abs((g[i] as number) - w), `seed ${seed} case ${t} [${n}, ${h}, ${l}, ${s}, ${e}, ${ev}] element ${i}`).toBeLessThan(1e-12));
    }
  });
});
