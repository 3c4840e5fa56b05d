// GPU suite of the device layer's cuBLASLt GEMMs (entry device-gemm-suite):
//
//   bash gpu-bundle/run.sh device-gemm-suite [--seed S] [--no-timing] [--only TEXT]
//                                            [--force-no-algorithm KIND,…|fallbacks]
//
// Runs every case of gemm-cases.ts through GemmLibrary on fresh seeded inputs (gemm-case-data.ts:
// exactly representable in their dtype), outputs (D, aux, bias gradients) poisoned with NaN bytes
// first, and checks every element against a float64 host reference (gemm-check.ts) with the error
// bound of gemm-tolerance.ts: the accumulation (f32, and the fp8 tensor cores' reduced-precision
// sum for fp8 inputs), every intermediate rounding to a 16-bit D that may happen — cuBLASLt's
// GELU, _AUX and backward epilogues round the GEMM result first (seen on the H200, gemm-suite-1.log;
// not by every algorithm), a no-algorithm fallback stores D between its two calls and may round
// the pre-activation before its activation — each bounded by u·|value| and carried through the
// activation's slope, then the final rounding. The reference is exact; it does not guess where
// cuBLASLt rounded. A bias gradient summed from D may differ by the sum of those D bounds.
// A case validateGemm must refuse is checked to be refused with that field; a configuration
// cuBLASLt has no algorithm for is counted apart ("no algorithm"), with its description. Then
// bf16 GEMM timings (CUDA events, L2 flushed before each run) as a table, last; the same shapes
// as tools/bench/gemm_bench.py times with PyTorch. Ends "N passed, M failed"; exit 1 on a failure.
// --force-no-algorithm takes cuBLASLt's heuristic as empty for those epilogues ("fallbacks": every
// one with a fallback), so the library's fallback (device gemm-fallback.ts) runs them as the
// plain GEMM plus one more cuBLASLt call (the check then allows its intermediate roundings); the
// keys that fell back are listed last.

import { CudaError, DeviceContext, GemmError, GemmLibrary, gemmAvailability, l2Flusher, timeDevice, type GemmDescriptor, type GemmEpilogue, type GemmEpilogueKind, type GemmMatrix, type GemmVector } from '@tsfuser/device';
import { seededRandom } from '@tsfuser/test-support';
import { gemmCases, type GemmCase } from './gemm-cases.js';
import { caseData } from './gemm-case-data.js';
import { checkCase, type CaseOutputs } from './gemm-check.js';
import { decode, elementBytes, encode, gemmEntryRefusal } from './gemm-host.js';

const args = process.argv.slice(2);
const seedArg = args.indexOf('--seed');
const seed = seedArg >= 0 ? Number(args[seedArg + 1]) : Math.floor(Math.random() * 2 ** 31);
const timing = !args.includes('--no-timing');
const onlyArg = args.indexOf('--only');
/** Runs only the cases whose id contains this text (e.g. "bf16 GELU_AUX"). */
const only = onlyArg >= 0 ? (args[onlyArg + 1] ?? '') : '';
const forceArg = args.indexOf('--force-no-algorithm');
const FALLBACK_EPILOGUES: GemmEpilogueKind[] = ['BIAS', 'RELU_BIAS', 'GELU_BIAS', 'RELU', 'GELU', 'GELU_AUX', 'GELU_AUX_BIAS', 'DRELU', 'DGELU', 'DRELU_BGRAD', 'DGELU_BGRAD', 'BGRADA', 'BGRADB'];
const forceText = forceArg >= 0 ? (args[forceArg + 1] ?? '') : '';
/** Epilogues whose heuristic is taken as empty (their fallback runs). */
const forced: GemmEpilogueKind[] = forceText === 'fallbacks' ? FALLBACK_EPILOGUES : forceText.split(',').filter((x) => x !== '') as GemmEpilogueKind[];

const refusal = gemmEntryRefusal();
if (refusal !== null) {
  console.log(`device-gemm-suite: cannot run: ${refusal}`);
  process.exit(1);
}
const gemm = gemmAvailability();
console.log(`device-gemm-suite: seed ${seed}; cuBLASLt ${gemm.version} from ${gemm.path}`);

const device = DeviceContext.create(0);
const library = GemmLibrary.create(device, { noAlgorithmFor: forced });
if (forced.length > 0) console.log(`forced without a cuBLASLt algorithm (fallbacks run): ${forced.join(', ')}`);
const rand = seededRandom(seed);

interface Buffer {
  pointer: bigint;
  bytes: number;
}
const live: Buffer[] = [];
function upload(bytes: Uint8Array): bigint {
  const pointer = device.malloc(Math.max(bytes.byteLength, 16));
  device.copyHostToDevice(pointer, bytes);
  live.push({ pointer, bytes: bytes.byteLength });
  return pointer;
}
function poisoned(bytes: number): bigint {
  const pointer = device.malloc(Math.max(bytes, 16));
  device.memsetD8(pointer, 0xff, Math.max(bytes, 16));
  live.push({ pointer, bytes });
  return pointer;
}
function download(pointer: bigint, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  device.copyDeviceToHost(out, pointer);
  return out;
}
function releaseAll(): void {
  for (const b of live.splice(0)) device.free(b.pointer);
}

interface Outcome {
  status: 'passed' | 'failed' | 'no algorithm';
  detail: string;
}

/** Calls whose fp8 scales the library staged into aligned slots (device fp8-scale-staging.ts). */
let stagedCalls = 0;

function runCase(c: GemmCase): Outcome {
  const { config, batch } = c;
  const data = caseData(c, rand);
  const A: GemmMatrix = { ...data.A.desc, pointer: upload(data.A.bytes) };
  const B: GemmMatrix = { ...data.B.desc, pointer: upload(data.B.bytes) };
  const { bytes: dBytes, ...dLayout } = data.d;
  const d: GemmMatrix = { ...dLayout, pointer: poisoned(dBytes) };
  const { vector } = data;
  const vectorBytes = batch * vector.length * elementBytes(vector.dtype);
  const inputVector = (): GemmVector => ({ pointer: upload(data.bias.bytes), dtype: vector.dtype, batchStride: vector.batchStride });
  const outputVector = (): GemmVector => ({ pointer: poisoned(vectorBytes), dtype: vector.dtype, batchStride: vector.batchStride });
  const aux = { pointer: data.aux.forward ? poisoned(data.aux.bytes) : upload(data.aux.input), ld: data.aux.ld, batchStride: data.aux.batchStride };
  let epilogue: GemmEpilogue;
  let biasGradient: GemmVector | undefined;
  switch (c.epilogue) {
    case 'DEFAULT':
    case 'DEFAULT_C':
      epilogue = { kind: 'DEFAULT' };
      break;
    case 'RELU':
    case 'GELU':
      epilogue = { kind: c.epilogue };
      break;
    case 'BIAS':
    case 'RELU_BIAS':
    case 'GELU_BIAS':
      epilogue = { kind: c.epilogue, bias: inputVector() };
      break;
    case 'RELU_AUX':
    case 'GELU_AUX':
    case 'DRELU':
    case 'DGELU':
      epilogue = { kind: c.epilogue, aux };
      break;
    case 'RELU_AUX_BIAS':
    case 'GELU_AUX_BIAS':
      epilogue = { kind: c.epilogue, bias: inputVector(), aux };
      break;
    case 'DRELU_BGRAD':
    case 'DGELU_BGRAD':
      biasGradient = outputVector();
      epilogue = { kind: c.epilogue, aux, biasGradient };
      break;
    case 'BGRADA':
    case 'BGRADB':
      biasGradient = outputVector();
      epilogue = { kind: c.epilogue, biasGradient };
      break;
  }
  const scalePointer = upload(encode('Float', [0.75, 1.5, 1.25]).bytes);
  const desc: GemmDescriptor = { a: A, b: B, d, epilogue, alpha: 1 };
  if (config.scaled) {
    desc.scales = { a: scalePointer, b: scalePointer + 4n, ...(config.d.startsWith('Float8') ? { d: scalePointer + 8n } : {}) };
  }
  if (data.c !== undefined) {
    desc.c = { ...data.c.desc, pointer: upload(data.c.bytes) };
    desc.beta = data.beta;
  }
  try {
    if (library.matmul(desc).stagedScales !== undefined) stagedCalls += 1;
    device.synchronize();
  } catch (error) {
    if (error instanceof GemmError && c.refusedField !== undefined) {
      return error.field === c.refusedField ? { status: 'passed', detail: `refused as documented: ${error.message}` } : { status: 'failed', detail: `refused with ${error.field}, expected ${c.refusedField}: ${error.message}` };
    }
    // a fallback whose step failed is a failure, not a configuration without an algorithm
    if (error instanceof GemmError && /no algorithm for this GEMM on this device/.test(error.message) && !/a step failed/.test(error.message)) return { status: 'no algorithm', detail: error.message };
    const e = error as Error;
    return { status: 'failed', detail: `${e instanceof CudaError ? `CudaError ${e.call} ${e.errorName}` : e.name}: ${e.message.split('\n')[0] ?? ''}` };
  }
  if (c.refusedField !== undefined) return { status: 'failed', detail: `ran, but validateGemm should refuse it (${c.refusedField})` };
  const auxGot = data.aux.forward ? download(aux.pointer, data.aux.bytes) : undefined;
  const outputs: CaseOutputs = {
    d: decode(config.d, download(d.pointer, dBytes)),
    ...(auxGot === undefined ? {} : { aux: auxGot, ...(data.aux.relu ? {} : { auxValues: decode(config.d, auxGot) }) }),
    ...(biasGradient === undefined ? {} : { biasGradient: decode(vector.dtype, download(biasGradient.pointer, vectorBytes)) }),
  };
  const check = checkCase(c, data, outputs, (forced as string[]).includes(c.epilogue));
  return check.passed ? { status: 'passed', detail: '' } : { status: 'failed', detail: check.detail };
}

const cases = gemmCases().filter((c) => c.id.includes(only));
const counts = new Map<string, { passed: number; failed: number; noAlgorithm: number }>();
const failures: string[] = [];
/** The first failure of each dtype × epilogue row (all of them printed: one line per row). */
const firstFailures: string[] = [];
const noAlgorithm: string[] = [];
const started = performance.now();
for (const [index, c] of cases.entries()) {
  if (index > 0 && index % 400 === 0) console.log(`  … ${index}/${cases.length} cases, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  let outcome: Outcome;
  try {
    outcome = runCase(c);
  } catch (error) {
    outcome = { status: 'failed', detail: `harness: ${(error as Error).message}` };
  } finally {
    releaseAll();
  }
  const key = `${c.config.name.padEnd(15)} ${c.epilogue}`;
  const row = counts.get(key) ?? { passed: 0, failed: 0, noAlgorithm: 0 };
  if (outcome.status === 'passed') row.passed += 1;
  else if (outcome.status === 'failed') {
    row.failed += 1;
    failures.push(`${c.id}: ${outcome.detail}`);
    if (row.failed === 1) firstFailures.push(`${c.id}: ${outcome.detail}`);
  } else {
    row.noAlgorithm += 1;
    noAlgorithm.push(`${c.id}`);
  }
  counts.set(key, row);
}
console.log(`\n${cases.length} cases in ${((performance.now() - started) / 1000).toFixed(1)} s; heuristic cache ${library.cachedAlgorithmCount} keys`);
console.log('dtypes          epilogue       passed failed no-algorithm');
for (const [key, row] of counts) console.log(`${key.padEnd(30)} ${String(row.passed).padStart(6)} ${String(row.failed).padStart(6)} ${String(row.noAlgorithm).padStart(12)}`);
if (noAlgorithm.length > 0) console.log(`\nno cuBLASLt algorithm (${noAlgorithm.length}), first 40:\n  ${noAlgorithm.slice(0, 40).join('\n  ')}`);
if (failures.length > 0) console.log(`\nfailures (${failures.length}), the first of each dtype × epilogue:\n  ${firstFailures.join('\n  ')}`);
if (stagedCalls > 0) console.log(`\nfp8 scales staged into the library's aligned slots in ${stagedCalls} calls (the suite packs A, B, D scales 4 bytes apart)`);
const fellBack = library.fallbacks;
if (fellBack.length > 0) {
  const ran = fellBack.filter((f) => f.ran);
  console.log(`\nheuristic keys without an algorithm: ${fellBack.length} (${ran.length} ran as a fallback, ${fellBack.length - ran.length} refused); per epilogue, the first:`);
  const seen = new Set<string>();
  for (const f of ran) {
    if (seen.has(f.epilogue)) continue;
    seen.add(f.epilogue);
    console.log(`  ${f.report}`);
  }
}

// Timings: bf16, D = X·Wᵀ (F.linear's layout), and the same with bias + GELU(tanh) fused.
const timingRows: string[] = [];
if (timing) {
  device.releasePool();
  const flusher = l2Flusher(device);
  const shapes: [number, number, number][] = [[8192, 4096, 4096], [8192, 16384, 4096], [8192, 4096, 16384], [4096, 11008, 4096]];
  for (const [m, n, k] of shapes) {
    const x = device.malloc(m * k * 2);
    const w = device.malloc(n * k * 2);
    const out = device.malloc(m * n * 2);
    const bias = device.malloc(n * 2);
    // bf16 0x3c3c ≈ 0.0115 everywhere: finite inputs (timing does not depend on the values).
    device.memsetD8(x, 0x3c, m * k * 2);
    device.memsetD8(w, 0x3c, n * k * 2);
    device.memsetD8(bias, 0, n * 2);
    const base: GemmDescriptor = {
      a: { pointer: x, dtype: 'BFloat16', rows: m, cols: k, ld: k },
      b: { pointer: w, dtype: 'BFloat16', rows: n, cols: k, ld: k, transposed: true },
      d: { pointer: out, dtype: 'BFloat16', rows: m, cols: n, ld: n },
    };
    const flops = 2 * m * n * k;
    for (const [label, desc] of [
      ['linear', base],
      ['linear+bias+gelu', { ...base, epilogue: { kind: 'GELU_BIAS', bias: { pointer: bias, dtype: 'BFloat16' } } }],
    ] as [string, GemmDescriptor][]) {
      const ms = timeDevice(device, flusher, () => library.matmul(desc), 20, 5);
      timingRows.push(`${`${m}x${n}x${k}`.padEnd(18)} ${label.padEnd(18)} ${ms.toFixed(3).padStart(8)} ms ${(flops / (ms * 1e-3) / 1e12).toFixed(1).padStart(7)} TFLOP/s`);
    }
    for (const p of [x, w, out, bias]) device.free(p);
    device.releasePool();
  }
  flusher.dispose();
}
library.dispose();
device.dispose();
if (timingRows.length > 0) {
  console.log('\ntsfuser cuBLASLt bf16 (M x N x K, D = X·Wᵀ), median of 20, L2 flushed');
  for (const row of timingRows) console.log(row);
}
const passed = [...counts.values()].reduce((s, r) => s + r.passed, 0);
console.log(`\n${passed} passed, ${failures.length} failed (${noAlgorithm.length} without a cuBLASLt algorithm; seed ${seed})`);
process.exitCode = failures.length > 0 ? 1 : 0;
