// GPU suite of attention segments through FusionExecutorCache (entry runtime-attention-fusions):
//
//   bash gpu-bundle/run.sh runtime-attention-fusions [--seed S] [--no-timing] [--only TEXT]
//
// sdpfa_fwd (outputs: attention output, logsumexp, philox seed / offset) and sdpfa_fwd →
// sdpfa_bwd in one definition (outputs: the forward's and dQ, dK, dV), each one
// FusionExecutorCache call with outputs poisoned (NaN) first, against the float64 reference
// evaluator of the same definition: causal or not, GQA (Hkv dividing H), an additive bias
// broadcast over the batch, a bool mask broadcast over heads, L ≠ S, odd sizes (1, 17, 129), E
// 64 / 128 and E 40 (the padded general path), BFloat16 and Half, dropout (its mask reproduced
// by the reference bit for bit, so the values compare), per output ‖out − ref‖ / ‖ref‖ ≤ 1e-2
// (logsumexp 1e-3; dQ and dK with a floor at 1e-3 of dV's scale, Case.floors) and the philox outputs equal. Then the attention half of a decoder block
// (RMSNorm → Q/K/V linears → RoPE → causal sdpfa_fwd → O linear → residual) as one definition
// against the reference, and its time per call at B 4, T 2048, D 2048, H 16, Hkv 4, E 128.
// Ends "N passed, M failed".

import { evaluate, type HostTensor } from '@tsfuser/fusion-ir';
import { CubinCache, DeviceContext, gemmAvailability, isAvailable, l2Flusher, Tensor, timeDevice } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { seededRandom } from '@tsfuser/test-support';
import { useHostCublasLt } from '../device/gemm-host.js';
import { attentionCases, decoderBlock, values, type Case } from './attention-fusion-cases.js';

const args = process.argv.slice(2);
const seedArg = args.indexOf('--seed');
const seed = seedArg >= 0 ? Number(args[seedArg + 1]) : Math.floor(Math.random() * 2 ** 31);
const timing = !args.includes('--no-timing');
const onlyArg = args.indexOf('--only');
const only = onlyArg >= 0 ? (args[onlyArg + 1] ?? '') : '';

/** Root-mean-square of the finite entries of `xs`. */
function rms(xs: readonly number[]): number {
  let sum = 0;
  let n = 0;
  for (const x of xs) {
    if (!Number.isFinite(x)) continue;
    sum += x * x;
    n += 1;
  }
  return n === 0 ? 0 : Math.sqrt(sum / n);
}

/**
 * ‖got − want‖ / max(‖want‖, FLOOR_FRACTION · floorRms · √n): relative, except that a reference
 * far below its floor output's scale (see Case.floors) is measured against that scale: 1e-3 of
 * it, so with the 1e-2 limit an error under 1e-5 of dV's per-element size passes.
 */
const FLOOR_FRACTION = 1e-3;

function relativeError(got: readonly number[], want: readonly number[], floorRms = 0): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < want.length; i += 1) {
    const w = want[i] as number;
    const g = got[i] as number;
    // fully masked rows: the reference's value (PyTorch's) must be reproduced, NaN or -inf included
    if (!Number.isFinite(w)) {
      if (!(Object.is(w, g) || (Number.isNaN(w) && Number.isNaN(g)))) return Infinity;
      continue;
    }
    num += (g - w) ** 2;
    den += w ** 2;
  }
  den = Math.max(den, (FLOOR_FRACTION * floorRms) ** 2 * want.length);
  return den === 0 ? Math.sqrt(num) : Math.sqrt(num / den);
}

function runCase(device: DeviceContext, cubinCache: CubinCache, c: Case, rand: () => number): string | null {
  const host = c.inputs.map((spec) => values(spec, rand));
  const dev = host.map((t) => Tensor.fromHost(t).toDevice(device));
  // One cubin cache for the run: a variant's kernels compile once, whichever case needs them first.
  const cache = new FusionExecutorCache(c.fusion, device, { poisonOutputs: true, cubinCache });
  let outs: Tensor[] = [];
  try {
    const want = evaluate(c.fusion, host) as HostTensor[];
    outs = cache.runFusion(dev);
    device.synchronize();
    const kinds = cache.lastPlan()?.segments.map((s) => s.kind) ?? [];
    if (!kinds.includes('attention')) return `no attention segment in the plan (${kinds.join('+')})`;
    for (let o = 0; o < want.length; o += 1) {
      const w = (want[o] as HostTensor).toNumbers();
      const g = (outs[o] as Tensor).toHost().toNumbers();
      const limit = c.limits[o] ?? 1e-2;
      if (limit === 'exact') {
        if (w.some((x, i) => x !== g[i])) return `output ${o}: got [${g.join(', ')}], want [${w.join(', ')}]`;
        continue;
      }
      const floorAt = c.floors?.[o] ?? null;
      const floorRms = floorAt === null ? 0 : rms((want[floorAt] as HostTensor).toNumbers());
      const err = relativeError(g, w, floorRms);
      if (!(err <= limit)) return `output ${o}: relative error ${err.toExponential(2)} > ${limit}`;
    }
    return null;
  } catch (error) {
    const e = error as Error;
    return `${e.name}: ${e.message.split('\n').slice(0, 3).join(' | ')}`;
  } finally {
    for (const t of outs) t.dispose();
    for (const t of dev) t.dispose();
  }
}

function timeBlock(device: DeviceContext, cubinCache: CubinCache, rand: () => number): string {
  const c = decoderBlock(4, 2048, 2048, 16, 4, 128);
  // Values are generated on the host once per input (the largest is 16.8 M elements).
  const dev = c.inputs.map((spec) => Tensor.fromHost(values(spec, rand)).toDevice(device));
  const cache = new FusionExecutorCache(c.fusion, device, { cubinCache });
  const flusher = l2Flusher(device);
  try {
    const ms = timeDevice(device, flusher, () => cache.runFusion(dev).forEach((t) => t.dispose()), 10);
    const segments = cache.lastPlan()?.segments.map((s) => s.kind).join('+') ?? '?';
    return `${c.name}: ${ms.toFixed(3)} ms per call (median of 10, L2 flushed), segments ${segments}`;
  } catch (error) {
    return `${c.name}: failed: ${(error as Error).message.slice(0, 200)}`;
  } finally {
    flusher.dispose();
    for (const t of dev) t.dispose();
    device.releasePool();
  }
}

function main(): number {
  useHostCublasLt();
  const runtime = isAvailable();
  if (!runtime.available) {
    console.log(`runtime-attention-fusions: cannot run: ${runtime.reason ?? '?'}`);
    return 1;
  }
  const gemm = gemmAvailability();
  console.log(`runtime-attention-fusions: seed ${seed}; cuBLASLt ${gemm.available ? (gemm.version ?? '?') : `unavailable (${gemm.reason ?? '?'}): the decoder block cannot run`}`);
  const device = DeviceContext.create(0);
  const rand = seededRandom(seed);
  const cubinCache = new CubinCache({ directory: null });
  const cases = [...attentionCases(), decoderBlock(2, 128, 512, 8, 2, 64)].filter((c) => only === '' || c.name.includes(only));
  const failures: string[] = [];
  for (const c of cases) {
    const started = performance.now();
    const problem = runCase(device, cubinCache, c, rand);
    const ms = (performance.now() - started).toFixed(0);
    if (problem !== null) failures.push(`${c.name}: ${problem}`);
    console.log(`${problem === null ? 'ok  ' : 'FAIL'} ${c.name} (${ms} ms)${problem === null ? '' : `: ${problem}`}`);
  }
  device.releasePool();
  const st = cubinCache.stats;
  console.log(`NVRTC: ${st.misses} kernels compiled, ${st.memoryHits} reused`);
  if (timing && gemm.available) console.log(`\n${timeBlock(device, cubinCache, rand)}`);
  console.log(`\nruntime-attention-fusions: ${cases.length - failures.length} passed, ${failures.length} failed (seed ${seed})`);
  device.dispose();
  return failures.length > 0 ? 1 : 0;
}

process.exitCode = main();
