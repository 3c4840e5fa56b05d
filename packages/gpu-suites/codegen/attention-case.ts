// One correctness case of the GPU attention entry: random inputs (seeded) in a chosen memory
// layout, the generated forward kernel and the three backward kernels run on poisoned outputs,
// and every output compared with the float64 reference by ‖out − ref‖ / ‖ref‖ (NaN fails;
// logsumexp's −inf entries must match exactly).
//
// Invariant: a case reports each output's error and whether it passed; it frees what it
// allocated whatever happens.

import { roundToBFloat16, roundToHalf } from '@tsfuser/fusion-ir';
import type { DeviceContext } from '@tsfuser/device';
import {
  checkAttentionInputs,
  dropoutConstants,
  generateAttentionBackward,
  generateAttentionBackwardConvert,
  generateAttentionBackwardPreprocess,
  generateAttentionForward,
  type AttentionDtype,
  type AttentionTiling,
  type AttentionVariant,
} from '@tsfuser/codegen';
import { attentionReference, seededRandom, type AttentionDense4 } from '@tsfuser/test-support';
import { DeviceTensor16, floatBuffer, readFloats, stridesFor, type KernelCache, type Sizes4 } from './attention-device.js';

export interface AttentionCase {
  id: number;
  dtype: AttentionDtype;
  batch: number;
  heads: number;
  kvHeads: number;
  queryLength: number;
  keyLength: number;
  headDim: number;
  causal: boolean;
  bias: 'none' | 'additive' | 'bool';
  /** Bias / mask dims N and H broadcast (size 1, stride 0). */
  biasBroadcast: readonly [boolean, boolean];
  dropoutP: number;
  /** Q/K/V/dO/outputs stored [N, L, H, E] (PyTorch's transpose(1, 2) of BSHD) instead of [N, H, L, E]. */
  sequenceMajor: boolean;
  /** Rows padded by 8 elements beyond the head dim rounded up to 8. */
  padRows: boolean;
  backward: boolean;
  /** The softmax scale; 1/√E when absent. */
  scale?: number;
  forwardTiling?: AttentionTiling;
  backwardTiling?: AttentionTiling;
}

export interface CaseResult {
  c: AttentionCase;
  errors: Record<string, number>;
  ok: boolean;
  detail: string;
}

export function caseLabel(c: AttentionCase): string {
  const heads = c.kvHeads === c.heads ? `${c.heads}` : `${c.heads}/${c.kvHeads}`;
  const flags = [c.causal ? 'causal' : '', c.bias === 'none' ? '' : c.bias === 'bool' ? 'mask' : 'bias', c.dropoutP > 0 ? `drop${c.dropoutP}` : '', c.sequenceMajor ? 'bshd' : '', c.padRows ? 'pad' : '', c.scale === undefined ? '' : `scale${c.scale}`].filter((f) => f !== '');
  return `${c.dtype === 'BFloat16' ? 'bf16' : 'f16'} N${c.batch} H${heads} L${c.queryLength} S${c.keyLength} E${c.headDim}${flags.length > 0 ? ` ${flags.join(',')}` : ''}`;
}

export function relativeError(got: ArrayLike<number>, ref: ArrayLike<number>): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < ref.length; i += 1) {
    const g = got[i] ?? NaN;
    const r = ref[i] ?? 0;
    if (Number.isNaN(g)) return NaN;
    if (r === -Infinity || g === -Infinity) {
      if (r !== g) return Infinity;
      continue;
    }
    num += (g - r) ** 2;
    den += r * r;
  }
  return den === 0 ? Math.sqrt(num) : Math.sqrt(num / den);
}

function randomValues(count: number, random: () => number, round: (x: number) => number, amplitude: number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i += 1) out[i] = round((random() * 2 - 1) * amplitude);
  return out;
}

export function caseVariant(c: AttentionCase): AttentionVariant {
  return { dtype: c.dtype, headDim: c.headDim, causal: c.causal, bias: c.bias, ...(c.bias === 'additive' ? { biasDtype: 'Float' as const } : {}), dropout: c.dropoutP > 0 };
}

type Reference = ReturnType<typeof attentionReference>;
const tilingReferences = new Map<string, Reference>();

/**
 * The float64 reference of a case; for the tiling probes (a case with a tiling override, the
 * same inputs for every tiling) computed once per case and seed rather than once per tiling.
 */
function cachedReference(c: AttentionCase, seed: number, compute: () => Reference): Reference {
  if (c.forwardTiling === undefined && c.backwardTiling === undefined) return compute();
  const key = JSON.stringify({ ...c, forwardTiling: undefined, backwardTiling: undefined, seed });
  const known = tilingReferences.get(key);
  if (known !== undefined) return known;
  const value = compute();
  tilingReferences.set(key, value);
  return value;
}

export function runCase(device: DeviceContext, kernels: KernelCache, c: AttentionCase, seed: number): CaseResult {
  const random = seededRandom(seed * 7919 + c.id);
  const round = c.dtype === 'BFloat16' ? roundToBFloat16 : roundToHalf;
  const { batch: n, heads: h, kvHeads: hkv, queryLength: l, keyLength: s, headDim: e } = c;
  const variant = caseVariant(c);
  const qSizes: Sizes4 = [n, h, l, e];
  const kSizes: Sizes4 = [n, hkv, s, e];
  const rowStride = Math.ceil(e / 8) * 8 + (c.padRows ? 8 : 0);
  const order: [number, number, number] = c.sequenceMajor ? [0, 2, 1] : [0, 1, 2];
  const qStrides = stridesFor(qSizes, order, rowStride);
  const kStrides = stridesFor(kSizes, order, rowStride);
  const q = randomValues(n * h * l * e, random, round, 1);
  const k = randomValues(n * hkv * s * e, random, round, 1);
  const v = randomValues(n * hkv * s * e, random, round, 1);
  const gradOut = randomValues(n * h * l * e, random, round, 1);
  const nb = c.biasBroadcast[0] ? 1 : n;
  const hb = c.biasBroadcast[1] ? 1 : h;
  const biasStrides = [c.biasBroadcast[0] ? 0 : hb * l * s, c.biasBroadcast[1] ? 0 : l * s, s, 1];
  const biasIndex = (bn: number, bh: number, bl: number, bs: number): number => (c.biasBroadcast[0] ? 0 : bn) * (biasStrides[0] ?? 0) + (c.biasBroadcast[1] ? 0 : bh) * (biasStrides[1] ?? 0) + bl * s + bs;
  const biasCount = nb * hb * l * s;
  const biasValues = new Float32Array(c.bias === 'additive' ? biasCount : 0);
  for (let i = 0; i < biasValues.length; i += 1) biasValues[i] = Math.fround((random() * 2 - 1) * 2);
  // Mask: about 1 in 5 false, and every 5th query row (of the first batch / head) fully masked.
  const maskValues = new Uint8Array(c.bias === 'bool' ? biasCount : 0);
  for (let i = 0; i < maskValues.length; i += 1) {
    const row = Math.floor(i / s) % l;
    maskValues[i] = row % 5 === 3 ? 0 : random() < 0.8 ? 1 : 0;
  }
  const dropout = c.dropoutP > 0 ? { p: c.dropoutP, seed: BigInt(seed) * 1000003n + BigInt(c.id), offset: BigInt(c.id * 4) } : undefined;
  const scale = c.scale ?? 1 / Math.sqrt(e);

  const allocations: { dispose(): void }[] = [];
  const pointers: bigint[] = [];
  const errors: Record<string, number> = {};
  try {
    const problem = checkAttentionInputs(variant, {
      query: { sizes: qSizes, strides: qStrides },
      key: { sizes: kSizes, strides: kStrides },
      value: { sizes: kSizes, strides: kStrides },
      ...(c.bias === 'none' ? {} : { bias: { sizes: [nb, hb, l, s], strides: biasStrides } }),
      dropoutProbability: c.dropoutP,
    });
    const track = <T extends { dispose(): void }>(t: T): T => {
      allocations.push(t);
      return t;
    };
    const qDev = track(DeviceTensor16.upload(device, c.dtype, qSizes, qStrides, q));
    const kDev = track(DeviceTensor16.upload(device, c.dtype, kSizes, kStrides, k));
    const vDev = track(DeviceTensor16.upload(device, c.dtype, kSizes, kStrides, v));
    const out = track(DeviceTensor16.poisoned(device, c.dtype, qSizes, qStrides));
    const lse = floatBuffer(device, n * h * l, true);
    pointers.push(lse);
    let biasPointer = 0n;
    if (c.bias !== 'none') {
      const bytes = c.bias === 'additive' ? biasValues : maskValues;
      biasPointer = device.malloc(Math.max(bytes.byteLength, 16));
      pointers.push(biasPointer);
      if (bytes.byteLength > 0) device.copyHostToDevice(biasPointer, bytes);
    }
    const { keepProb, keepScale } = dropoutConstants(c.dropoutP);
    const common = {
      bias: biasPointer,
      heads: h,
      kvHeads: hkv,
      queryLength: l,
      keyLength: s,
      biasStrideN: biasStrides[0] ?? 0,
      biasStrideH: biasStrides[1] ?? 0,
      biasStrideL: biasStrides[2] ?? 0,
      biasStrideS: biasStrides[3] ?? 0,
      scaleLog2: Math.fround(scale * Math.LOG2E),
      scale: Math.fround(scale),
      seed: dropout?.seed ?? 0n,
      offset: dropout?.offset ?? 0n,
      keepProb,
      keepScale,
    };
    const strideArgs = (prefix: string, st: readonly number[]): Record<string, number> => ({ [`${prefix}StrideN`]: st[0] ?? 0, [`${prefix}StrideH`]: st[1] ?? 0, [`${prefix}StrideL`]: st[2] ?? 0 });
    const fwd = generateAttentionForward(variant, c.forwardTiling);
    kernels.launch(fwd, problem, { ...common, q: qDev.pointer, k: kDev.pointer, v: vDev.pointer, o: out.pointer, lse, ...strideArgs('q', qStrides), ...strideArgs('k', kStrides), ...strideArgs('v', kStrides), ...strideArgs('o', qStrides) });
    device.synchronize();

    const reference = cachedReference(c, seed, () => attentionReference(
      {
        q: { sizes: qSizes, data: q },
        k: { sizes: kSizes, data: k },
        v: { sizes: kSizes, data: v },
        causal: c.causal,
        scale,
        ...(c.bias === 'additive' ? { biasAt: (bn: number, bh: number, bl: number, bs: number) => biasValues[biasIndex(bn, bh, bl, bs)] ?? 0 } : {}),
        ...(c.bias === 'bool' ? { maskAt: (bn: number, bh: number, bl: number, bs: number) => maskValues[biasIndex(bn, bh, bl, bs)] === 1 } : {}),
        ...(dropout === undefined ? {} : { dropout }),
      },
      c.backward ? ({ sizes: qSizes, data: gradOut } satisfies AttentionDense4) : undefined,
    ));
    errors.out = relativeError(out.values(), reference.forward.out);
    errors.lse = relativeError(readFloats(device, lse, n * h * l), reference.forward.lse);

    if (c.backward && reference.backward !== undefined) {
      const gOut = track(DeviceTensor16.upload(device, c.dtype, qSizes, qStrides, gradOut));
      const gq = track(DeviceTensor16.poisoned(device, c.dtype, qSizes, qStrides));
      const gk = track(DeviceTensor16.poisoned(device, c.dtype, kSizes, kStrides));
      const gv = track(DeviceTensor16.poisoned(device, c.dtype, kSizes, kStrides));
      const delta = floatBuffer(device, n * h * l, true);
      const accumulator = floatBuffer(device, n * h * l * e, true);
      pointers.push(delta, accumulator);
      const rows = n * h * l;
      const pre = generateAttentionBackwardPreprocess(variant);
      const main = generateAttentionBackward(variant, c.backwardTiling);
      const convert = generateAttentionBackwardConvert(variant);
      kernels.launch(pre, problem, { o: out.pointer, gradOutput: gOut.pointer, delta, gradQueryAccumulator: accumulator, heads: h, queryLength: l, rows, ...strideArgs('o', qStrides), ...strideArgs('gradOutput', qStrides) });
      kernels.launch(main, problem, { ...common, q: qDev.pointer, k: kDev.pointer, v: vDev.pointer, gradOutput: gOut.pointer, lse, delta, gradQueryAccumulator: accumulator, gradKey: gk.pointer, gradValue: gv.pointer, ...strideArgs('q', qStrides), ...strideArgs('k', kStrides), ...strideArgs('v', kStrides), ...strideArgs('gradOutput', qStrides), ...strideArgs('gradKey', kStrides), ...strideArgs('gradValue', kStrides) });
      kernels.launch(convert, problem, { gradQueryAccumulator: accumulator, gradQuery: gq.pointer, heads: h, queryLength: l, rows, ...strideArgs('gradQuery', qStrides), scale: Math.fround(scale) });
      device.synchronize();
      errors.dq = relativeError(gq.values(), reference.backward.dq);
      errors.dk = relativeError(gk.values(), reference.backward.dk);
      errors.dv = relativeError(gv.values(), reference.backward.dv);
    }
    const limits: Record<string, number> = { out: 1e-2, lse: 1e-3, dq: 1e-2, dk: 1e-2, dv: 1e-2 };
    const bad = Object.entries(errors).filter(([name, err]) => !(err <= (limits[name] ?? 0)));
    const detail = Object.entries(errors)
      .map(([name, err]) => `${name} ${err.toExponential(1)}`)
      .join(' ');
    return { c, errors, ok: bad.length === 0, detail };
  } catch (error) {
    const err = error as Error;
    return { c, errors, ok: false, detail: `${err.name}: ${err.message.split('\n').slice(0, 2).join(' | ')}` };
  } finally {
    for (const a of allocations) a.dispose();
    for (const p of pointers) device.free(p);
  }
}
