// A mutational fuzzer for execute-time inputs (issue 21). Each case builds a random definition
// (1-3 tensor inputs of one rank with symbolic, fixed and broadcast dims, random contiguity,
// stride order and dtypes, 0-2 scalar inputs; output = Σ cast(input, Double)), makes valid
// inputs, checks that they run and match the reference evaluator, then mutates them and feeds
// them through one of four entries, all in-process:
//   execute   fd.execute with wrong ranks, dtypes, sizes, strides, scalars of every kind,
//             NaN/Inf/huge/negative values, nulls, non-arrays, wrong lengths, huge expanded views;
//   cli-text  the CLI's --inputs parser (loadInputFiles) with scalar text and mutated .npy files;
//   script    the CLI's script-inputs path (buildFileInputs) with mutated InputSpecs;
//   shape     the CLI's --shape parser and input generation.
// A case passes when the entry returns inputs/outputs that are right (a mutation known to be
// valid runs and matches the reference evaluator on the same inputs; value-preserving ones match
// the unmutated result exactly; one known to be invalid is refused) or throws one of the
// project's own input errors naming the input (InputMismatchError, AllocationLimitError,
// InputListError; UsageError for malformed --shape text). Anything else — a TypeError, a
// RangeError, an evaluator error, an allocation past the limits — is a failure with its seed.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HostTensor, evaluate, type DataType, type EvalValue } from '@tsfuser/fusion-ir';
import { AllocationLimitError, DataType as DT, FusionCache, FusionDefinition, InputListError, InputMismatchError, Tensor, type InputDescriptor } from '../../src/index.js';
import { UsageError } from '../../src/cli/console.js';
import { buildFileInputs, loadInputFiles, parseShape } from '../../src/cli/run-inputs.js';
import { checkInputs } from '../../src/execute/input-check.js';
import { AllocationBudget, type AllocationLimits } from '../../src/io/allocation-limits.js';
import { compareTensors } from '../../src/io/compare.js';
import { generateInputs, stridesFor } from '../../src/io/input-generation.js';
import type { InputSpec, TensorViewOp } from '../../src/io/input-spec.js';
import { writeNpy } from '../../src/io/npy.js';
import { Random } from '../../src/io/random.js';
import { spanOf } from '../../src/io/tensor-views.js';
import { mutateNpy, scalarTextOracle, SCALAR_TEXTS, SCALAR_VALUES, scalarValidFor } from './input-mutations.js';

export type FuzzTarget = 'execute' | 'cli-text' | 'script' | 'shape';

export interface FuzzFailure {
  caseIndex: number;
  caseSeed: number;
  target: FuzzTarget;
  mutation: string;
  problem: string;
}

export interface FuzzReport {
  seed: number;
  cases: number;
  /** `target/outcome` → count (outcome: ok, refused:<ErrorName>). */
  outcomes: Map<string, number>;
  failures: FuzzFailure[];
}

/** Small limits so that no case allocates much; huge inputs must be refused against them. */
export const FUZZ_LIMITS: AllocationLimits = { maxElements: 1 << 16, maxTotalBytes: 1 << 21 };

const DTYPES: readonly DataType[] = ['Bool', 'Int32', 'Int', 'Half', 'BFloat16', 'Float', 'Double'];

interface Case {
  fd: FusionDefinition;
  descriptors: readonly InputDescriptor[];
  sizes: number[];
  inputs: (Tensor | number | boolean | bigint)[];
}

function pick<T>(rng: Random, xs: readonly T[]): T {
  return xs[rng.int(0, xs.length)] as T;
}

function randomCase(rng: Random): Case {
  const rank = rng.int(0, 4);
  const sizes = Array.from({ length: rank }, () => (rng.uniform() < 0.05 ? 0 : rng.int(1, 6)));
  const tensors = rng.int(1, 4);
  const scalars = rng.int(0, 3);
  const fd = FusionDefinition.build((f) => {
    let acc = null;
    for (let k = 0; k < tensors; k += 1) {
      // With a stride order: no broadcast dims and one contiguity flag for all dims, so that the
      // definition means the same whether contiguity is read per dim or per allocation position.
      const ordered = rng.uniform() < 0.3 && sizes.length > 1;
      const shape = sizes.map((s) => {
        const r = rng.uniform();
        return r < 0.15 && !ordered ? 1 : r < 0.3 ? (ordered && s === 1 ? -1 : s) : -1;
      });
      const allContiguous = rng.uniform() < 0.6;
      const contiguity = shape.map((s) => (s === 1 ? null : ordered ? allContiguous : rng.uniform() < 0.6));
      const order = [...shape.keys()];
      for (let i = order.length - 1; i > 0; i -= 1) {
        const j = rng.int(0, i + 1);
        [order[i], order[j]] = [order[j] as number, order[i] as number];
      }
      const strideOrder = ordered ? order : undefined;
      const t = f.defineTensor({ shape, contiguity, dtype: pick(rng, DTYPES), ...(strideOrder === undefined ? {} : { strideOrder }) });
      const c = f.ops.cast(t, DT.Double);
      acc = acc === null ? c : f.ops.add(acc, c);
    }
    for (let k = 0; k < scalars; k += 1) {
      const s = f.defineScalar(null, pick(rng, DTYPES));
      if (acc !== null) acc = f.ops.add(acc, f.ops.cast(s, DT.Double));
    }
    if (acc !== null) f.addOutput(acc);
  }, { cache: new FusionCache() });
  const descriptors = fd.inputs();
  // Broadcast dims are size 1 and fixed dims their size; symbolic dims take `sizes`.
  const inputs = generateInputs(descriptors, rng, sizes).map((v, i) => {
    const d = descriptors[i];
    if (d?.kind !== 'scalar') return v;
    if (d.dtype === 'Bool') return rng.uniform() < 0.5;
    return pick(rng, d.dtype === 'Int' || d.dtype === 'Index' || d.dtype === 'Int32' ? [0, 3, -2] : [0.5, -1.25, 2]);
  });
  return { fd, descriptors, sizes, inputs };
}

function referenceOutputs(c: Case, inputs: readonly unknown[]): HostTensor[] {
  const values = inputs.map((v): EvalValue => (v instanceof Tensor ? v.toHost() : (v as EvalValue)));
  return evaluate(c.fd.fusionIr(), values).map((o) => (o instanceof HostTensor ? o : HostTensor.fromValues('Double', [], [o])));
}

function sameOutputs(actual: readonly HostTensor[], expected: readonly HostTensor[], exact: boolean): string | null {
  if (actual.length !== expected.length) return `${actual.length} outputs, expected ${expected.length}`;
  for (let i = 0; i < actual.length; i += 1) {
    const r = compareTensors(actual[i] as HostTensor, expected[i] as HostTensor, exact ? { rtol: 0, atol: 0 } : undefined);
    if (!r.ok) return `output ${i}: ${r.reason}`;
  }
  return null;
}

/** The project's own input errors, with the index in range when they name one. */
function acceptedError(e: unknown, inputCount: number, allowUsage: boolean): string | null {
  if (e instanceof InputMismatchError) return e.inputIndex >= 0 && e.inputIndex <= inputCount ? null : `input index ${e.inputIndex} out of range`;
  if (e instanceof AllocationLimitError) return e.inputIndex === null || (e.inputIndex >= 0 && e.inputIndex < inputCount) ? null : `input index ${String(e.inputIndex)} out of range`;
  if (e instanceof InputListError) return null;
  if (allowUsage && e instanceof UsageError) return null;
  return `${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
}

/** Storage bytes of the inputs: never past the limits. */
function storageProblem(inputs: readonly unknown[]): string | null {
  let bytes = 0;
  for (const v of inputs) {
    if (!(v instanceof Tensor)) continue;
    const data = v.toHost().data;
    if (data.length > FUZZ_LIMITS.maxElements) return `a tensor of ${data.length} elements was allocated`;
    bytes += data.byteLength;
  }
  return bytes > FUZZ_LIMITS.maxTotalBytes ? `${bytes} bytes of inputs were allocated` : null;
}

type Validity = 'valid' | 'valid-same-values' | 'invalid' | 'maybe';

interface Mutation {
  name: string;
  inputs: unknown;
  validity: Validity;
}

function restrided(t: Tensor, rng: Random): Tensor {
  // The same logical values in a different layout: storage in a random dim order with gaps.
  const host = t.toHost();
  const order = [...host.sizes.keys()].sort(() => rng.uniform() - 0.5);
  const strides = new Array<number>(host.rank).fill(1);
  let acc = 1 + rng.int(0, 2);
  for (let k = order.length - 1; k >= 0; k -= 1) {
    const d = order[k] as number;
    strides[d] = acc;
    acc *= Math.max(host.sizes[d] as number, 1) + rng.int(0, 2);
  }
  const out = new HostTensor(host.dtype, [...host.sizes], strides, new (host.data.constructor as new (n: number) => typeof host.data)(Math.max(acc, 1)));
  for (let i = 0; i < host.numel; i += 1) out.setFlat(i, host.get(i));
  return Tensor.fromHost(out);
}

function mutateExecute(c: Case, rng: Random): Mutation {
  const n = c.inputs.length;
  const i = rng.int(0, Math.max(n, 1));
  const d = c.descriptors[i];
  const replaced = (v: unknown): unknown[] => c.inputs.map((x, k) => (k === i ? v : x));
  const r = rng.int(0, 12);
  if (r === 0) return pick(rng, [
    { name: 'inputs null', inputs: null, validity: 'invalid' },
    { name: 'inputs object', inputs: { length: n }, validity: 'invalid' },
    { name: 'inputs string', inputs: 'inputs', validity: 'invalid' },
    { name: 'one input short', inputs: c.inputs.slice(0, -1), validity: n === 0 ? 'valid' : 'invalid' },
    { name: 'one input extra', inputs: [...c.inputs, 1], validity: 'invalid' },
    { name: 'a hole', inputs: n === 0 ? [] : Object.assign(new Array<unknown>(n), c.inputs.slice(1)), validity: n === 0 ? 'valid' : 'maybe' },
  ] as Mutation[]);
  if (d === undefined) return { name: 'unmutated (no inputs)', inputs: c.inputs, validity: 'valid-same-values' };
  if (d.kind === 'scalar') {
    const v = pick(rng, SCALAR_VALUES);
    return { name: `S${i} (${d.dtype}) = ${typeof v === 'bigint' ? `${v}n` : String(v)}`, inputs: replaced(v), validity: scalarValidFor(d.dtype, v) ? 'valid' : 'invalid' };
  }
  const t = c.inputs[i] as Tensor;
  const host = t.toHost();
  switch (r) {
    case 1: {
      const dtype = pick(rng, DTYPES.filter((x) => x !== d.spec.dtype));
      const other = HostTensor.empty(dtype, host.sizes);
      return { name: `T${i} dtype ${dtype}`, inputs: replaced(Tensor.fromHost(other)), validity: (dtype === 'Int' && d.spec.dtype === 'Index') ? 'maybe' : 'invalid' };
    }
    case 2: {
      const sizes = rng.uniform() < 0.5 ? [...host.sizes, 2] : host.sizes.slice(1);
      return { name: `T${i} rank ${sizes.length}`, inputs: replaced(Tensor.fromHost(HostTensor.empty(host.dtype, sizes))), validity: sizes.length === host.rank ? 'maybe' : 'invalid' };
    }
    case 3: {
      if (host.rank === 0) return { name: 'unmutated', inputs: c.inputs, validity: 'valid-same-values' };
      const dim = rng.int(0, host.rank);
      const sizes = [...host.sizes];
      sizes[dim] = pick(rng, [0, 1, 2, 7]);
      const declared = d.spec.shape[dim] as number;
      const validity: Validity = declared === 1 ? (sizes[dim] === 1 ? 'valid' : 'invalid') : declared >= 0 ? (sizes[dim] === declared ? 'valid' : 'invalid') : 'maybe';
      // Laid out in the declared stride order, so that only the size can be wrong.
      const strides = stridesFor(d.spec, sizes);
      const resizedInput = new HostTensor(host.dtype, sizes, strides, HostTensor.empty(host.dtype, [spanOf(sizes, strides)]).data);
      return { name: `T${i} dim ${dim} size ${sizes[dim]}`, inputs: replaced(Tensor.fromHost(resizedInput)), validity };
    }
    case 4:
      return { name: `T${i} restrided`, inputs: replaced(restrided(t, rng)), validity: 'maybe' };
    case 5: {
      // A huge logical tensor over one element (stride 0): refused before any evaluation.
      const sizes = host.sizes.map((s, dim) => ((d.spec.shape[dim] as number) < 0 ? 1 << 14 : s));
      const huge = new HostTensor(host.dtype, sizes, sizes.map(() => 0), HostTensor.empty(host.dtype, [1]).data);
      const big = sizes.reduce((a, b) => a * b, 1) > FUZZ_LIMITS.maxElements;
      return { name: `T${i} expanded to [${sizes.join(', ')}]`, inputs: replaced(Tensor.fromHost(huge)), validity: big ? 'invalid' : 'maybe' };
    }
    case 6:
      return { name: `T${i} = ${pick(rng, ['null', 'number', 'HostTensor', 'array'])}`, inputs: replaced(pick(rng, [null, 1.5, host, [1, 2]])), validity: 'invalid' };
    case 7: {
      // Every symbolic dim resized together: still valid.
      const sizes = c.sizes.map(() => rng.int(0, 5));
      return { name: `resized to [${sizes.join(', ')}]`, inputs: resized(c, sizes, rng), validity: 'maybe' };
    }
    default: {
      // Special float values in a floating tensor: valid, the output must follow.
      const copy = host.contiguous();
      for (let k = 0; k < copy.numel; k += 1) if (rng.uniform() < 0.3) copy.setFlat(k, pick(rng, [NaN, Infinity, -Infinity, 1e30, -0]));
      return { name: `T${i} special values`, inputs: replaced(Tensor.fromHost(copy)), validity: 'maybe' };
    }
  }
}

function resized(c: Case, sizes: readonly number[], rng: Random): unknown[] {
  const fresh = generateInputs(c.descriptors, rng, sizes);
  return fresh.map((v, k) => (v instanceof Tensor ? v : c.inputs[k]));
}

async function checkedExecute(c: Case, inputs: unknown): Promise<HostTensor[]> {
  const outs = await c.fd.execute(inputs as never, { backend: 'reference', limits: FUZZ_LIMITS });
  return outs.map((o) => o.toHost());
}

async function fuzzExecute(c: Case, rng: Random, base: HostTensor[]): Promise<{ mutation: string; outcome: string; problem: string | null }> {
  const m = mutateExecute(c, rng);
  try {
    const outs = await checkedExecute(c, m.inputs);
    if (m.validity === 'invalid') return { mutation: m.name, outcome: 'ok', problem: 'an invalid input was accepted' };
    const expected = m.validity === 'valid-same-values' ? base : referenceOutputs(c, m.inputs as unknown[]);
    const mismatch = sameOutputs(outs, expected, true);
    if (m.name.endsWith('restrided') && mismatch === null) {
      const againstBase = sameOutputs(outs, base, true);
      if (againstBase !== null) return { mutation: m.name, outcome: 'ok', problem: `a restrided input changed the result: ${againstBase}` };
    }
    return { mutation: m.name, outcome: 'ok', problem: mismatch };
  } catch (e) {
    const problem = acceptedError(e, c.descriptors.length, false);
    if (problem === null && (m.validity === 'valid' || m.validity === 'valid-same-values')) return { mutation: m.name, outcome: `refused:${(e as Error).name}`, problem: `a valid input was refused: ${(e as Error).message}` };
    return { mutation: m.name, outcome: `refused:${e instanceof Error ? e.name : typeof e}`, problem };
  }
}

function fuzzCliText(c: Case, rng: Random, dir: string, caseIndex: number): { mutation: string; outcome: string; problem: string | null } {
  const parts: string[] = [];
  const oracles: ((v: unknown) => string | null)[] = [];
  c.descriptors.forEach((d, k) => {
    if (d.kind === 'scalar') {
      const text = pick(rng, SCALAR_TEXTS);
      parts.push(text);
      oracles.push((v) => scalarTextOracle(d.dtype, text, v));
      return;
    }
    const file = join(dir, `c${caseIndex}-${k}.npy`);
    const bytes = writeNpy((c.inputs[k] as Tensor).toHost());
    const mutated = rng.uniform() < 0.6 ? mutateNpy(bytes, rng) : { bytes, name: 'intact' };
    writeFileSync(file, mutated.bytes);
    parts.push(rng.uniform() < 0.05 ? pick(rng, ['1.5', 'missing.npy', '']) : file);
    // An intact file reads back as the tensor written (values exactly; layout dense).
    const original = (c.inputs[k] as Tensor).toHost();
    oracles.push((v) => {
      if (mutated.name !== 'intact' || !(v instanceof Tensor)) return null;
      const back = v.toHost();
      if (back.dtype !== original.dtype) return `${file} read back as ${back.dtype}, written as ${original.dtype}`;
      return sameOutputs([back], [original], true);
    });
  });
  if (rng.uniform() < 0.1) parts.push(pick(rng, ['1', 'x.npy']));
  const list = parts.join(',');
  const mutation = `--inputs ${list.replaceAll(dir, '<dir>')}`;
  try {
    const inputs = loadInputFiles(list, c.descriptors, dir, FUZZ_LIMITS);
    checkInputs(c.descriptors, inputs);
    const wrong = inputs.map((v, k) => oracles[k]?.(v) ?? null).find((p) => p !== null) ?? storageProblem(inputs);
    return { mutation, outcome: 'ok', problem: wrong ?? null };
  } catch (e) {
    return { mutation, outcome: `refused:${e instanceof Error ? e.name : typeof e}`, problem: acceptedError(e, c.descriptors.length, false) };
  }
}

const VIEW_OPS: readonly ((rng: Random) => TensorViewOp)[] = [
  (rng) => ({ kind: 'transpose', dim0: rng.int(-3, 4), dim1: rng.int(-3, 4) }),
  (rng) => ({ kind: 'expand', sizes: Array.from({ length: rng.int(0, 5) }, () => pick(rng, [-1, 1, 3, 1 << 20])) }),
  (rng) => ({ kind: 'slice', dim: rng.int(-3, 4), start: pick(rng, [null, 0, 1, -1, 99]), stop: pick(rng, [null, 2, -1, 1e18]), step: pick(rng, [1, 2, 0, -1]) }),
  (rng) => ({ kind: 'select', dim: rng.int(-3, 4), index: pick(rng, [0, 1, -1, 7]) }),
  (rng) => ({ kind: 'asStrided', size: [rng.int(0, 5), rng.int(0, 5)], stride: [pick(rng, [0, 1, 5, 1 << 30]), 1], offset: pick(rng, [null, 0, 3, -1]) }),
  (rng) => ({ kind: 'unsqueeze', dim: rng.int(-4, 5) }),
  () => ({ kind: 'contiguous' }),
  (rng) => ({ kind: 'to', dtype: pick(rng, DTYPES) }),
  (rng) => ({ kind: 'permute', dims: [rng.int(-2, 3), rng.int(-2, 3)] }),
];

function fuzzScript(c: Case, rng: Random): { mutation: string; outcome: string; problem: string | null } {
  const specs: InputSpec[] = c.descriptors.map((d, k): InputSpec => {
    if (d.kind === 'scalar') {
      const v = c.inputs[k];
      return { kind: 'scalar', value: typeof v === 'boolean' ? v : Number(v), isFloat: false };
    }
    return { kind: 'tensor', factory: pick(rng, ['randn', 'ones', 'arange', 'randint', 'full'] as const), shape: [...(c.inputs[k] as Tensor).sizes], dtype: d.spec.dtype };
  });
  const k = rng.int(0, Math.max(specs.length, 1));
  const spec = specs[k];
  let mutation = 'unmutated';
  if (spec?.kind === 'tensor') {
    const r = rng.int(0, 4);
    if (r === 0) {
      spec.shape = spec.shape.map(() => pick(rng, [-1, 2.5, NaN, 2 ** 53, 1 << 16, 0, 3]));
      mutation = `T${k} shape [${spec.shape.join(', ')}]`;
    } else if (r <= 2) {
      spec.views = Array.from({ length: rng.int(1, 4) }, () => pick(rng, VIEW_OPS)(rng));
      mutation = `T${k} views ${JSON.stringify(spec.views)}`;
    } else {
      spec.dtype = pick(rng, DTYPES);
      mutation = `T${k} dtype ${spec.dtype}`;
    }
  } else if (spec?.kind === 'scalar') {
    const v = pick(rng, SCALAR_VALUES.filter((x): x is number | boolean => typeof x === 'number' || typeof x === 'boolean'));
    specs[k] = { kind: 'scalar', value: v, isFloat: true };
    mutation = `S${k} = ${String(v)}`;
  }
  try {
    const inputs = buildFileInputs(c.descriptors, specs, rng, FUZZ_LIMITS);
    checkInputs(c.descriptors, inputs);
    return { mutation, outcome: 'ok', problem: storageProblem(inputs) };
  } catch (e) {
    return { mutation, outcome: `refused:${e instanceof Error ? e.name : typeof e}`, problem: acceptedError(e, c.descriptors.length, false) };
  }
}

const SHAPE_TEXTS = ['2,3', '0', '', ',', '-1', '1e3', '9007199254740993', '65536,65536', '2147483648', ' 4 , 5 ', 'a', '3.5', '1,1,1,1,1,1,1,1,1', '99999999999999999999999', '0x10', '7'];

async function fuzzShape(c: Case, rng: Random): Promise<{ mutation: string; outcome: string; problem: string | null }> {
  const text = rng.uniform() < 0.5 ? pick(rng, SHAPE_TEXTS) : Array.from({ length: rng.int(1, 4) }, () => String(rng.int(0, 300))).join(',');
  try {
    const sizes = parseShape(text);
    const inputs = generateInputs(c.descriptors, rng, sizes, new AllocationBudget(FUZZ_LIMITS));
    const storage = storageProblem(inputs);
    if (storage !== null) return { mutation: `--shape ${text}`, outcome: 'ok', problem: storage };
    const outs = await checkedExecute(c, inputs);
    return { mutation: `--shape ${text}`, outcome: 'ok', problem: sameOutputs(outs, referenceOutputs(c, inputs), true) };
  } catch (e) {
    return { mutation: `--shape ${text}`, outcome: `refused:${e instanceof Error ? e.name : typeof e}`, problem: acceptedError(e, c.descriptors.length, true) };
  }
}

/** Runs `cases` fuzz cases from `seed`; `dir` holds the .npy files the cli-text cases write. */
export async function runExecuteInputsFuzz(seed: number, cases: number, dir: string): Promise<FuzzReport> {
  mkdirSync(dir, { recursive: true });
  const report: FuzzReport = { seed, cases, outcomes: new Map(), failures: [] };
  for (let caseIndex = 0; caseIndex < cases; caseIndex += 1) {
    const caseSeed = (Math.imul(seed, 0x9e3779b1) + caseIndex) >>> 0;
    const rng = new Random(caseSeed);
    const roll = rng.uniform();
    const target: FuzzTarget = roll < 0.55 ? 'execute' : roll < 0.7 ? 'cli-text' : roll < 0.85 ? 'script' : 'shape';
    let result: { mutation: string; outcome: string; problem: string | null };
    try {
      const c = randomCase(rng);
      const base = referenceOutputs(c, c.inputs);
      const sanity = sameOutputs(await checkedExecute(c, c.inputs), base, true);
      if (sanity !== null) {
        result = { mutation: 'unmutated', outcome: 'ok', problem: `valid inputs gave a different result: ${sanity}` };
      } else if (target === 'execute') {
        result = await fuzzExecute(c, rng, base);
      } else if (target === 'cli-text') {
        result = fuzzCliText(c, rng, dir, caseIndex);
      } else if (target === 'script') {
        result = fuzzScript(c, rng);
      } else {
        result = await fuzzShape(c, rng);
      }
    } catch (e) {
      result = { mutation: 'case setup', outcome: 'crash', problem: `${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}` };
    }
    const key = `${target}/${result.outcome}`;
    report.outcomes.set(key, (report.outcomes.get(key) ?? 0) + 1);
    if (result.problem !== null) report.failures.push({ caseIndex, caseSeed, target, mutation: result.mutation, problem: result.problem });
  }
  return report;
}
