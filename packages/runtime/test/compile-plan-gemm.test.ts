// The compile plan with GEMM segments, built without a device: each matmul / linear segment is
// a library call (no kernel, no step of its own in `steps`), the sequence interleaves kernel
// steps and library calls in group order, and running the plan's sequence as the executor cache
// does — the library calls through a host GemmLibrary on the plan's buffers — gives the
// reference evaluator's values for an MLP (random Float inputs, seed printed on failure).
import { add, broadcast, evaluate, Fusion, gelu, HostTensor, layerNorm, linear, makeTensor, relu, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, H100_PROPERTIES, makeRuntimeInfo, segmentationPlanner } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { buildCompilePlan, runLibraryCall, type CompilePlan, type GemmBuffer, type PlannedArgument, type PlanRef } from '../src/index.js';
import { HostGemm, HostMemory } from './host-gemm.js';

const SEED = Number(process.env.SEED ?? Date.now() % 1_000_000);

function input(f: Fusion, rank: number): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype: 'Float' });
  f.addInput(tv);
  return tv;
}

/** layer_norm? -> linear + b1 -> activation -> linear + b2, Float. */
function mlp(withLayerNorm: boolean, activation: 'gelu' | 'relu' = 'gelu'): Fusion {
  const f = new Fusion();
  const x = input(f, 2);
  const w1 = input(f, 2);
  const b1 = input(f, 1);
  const w2 = input(f, 2);
  const b2 = input(f, 1);
  const h = withLayerNorm ? layerNorm(x, 1).output : x;
  const pre = add(linear(h, w1), broadcast(b1, [true, false]));
  f.addOutput(linear(activation === 'gelu' ? gelu(pre, 'tanh') : relu(pre), w2, b2));
  return f;
}

const SIZES = [[12, 8], [16, 8], [16], [8, 16], [8]];

function dense(sizes: readonly number[]): number[] {
  const s = new Array<number>(sizes.length).fill(1);
  for (let i = sizes.length - 2; i >= 0; i -= 1) s[i] = (s[i + 1] as number) * (sizes[i + 1] as number);
  return s;
}

function planOf(fusion: Fusion): CompilePlan {
  const info = makeRuntimeInfo(fusion, SIZES.map((sizes) => ({ sizes, alignment: 256 })), H100_PROPERTIES);
  const args: PlannedArgument[] = SIZES.map((sizes) => ({ kind: 'tensor', sizes, strides: dense(sizes), alignment: 256 }));
  const registry = defaultSchedulerRegistry();
  return buildCompilePlan(fusion, args, H100_PROPERTIES, info, segmentationPlanner(registry)(fusion, info), { registry });
}

describe(`compile plans with GEMM segments (seed ${SEED})`, () => {
  it('a layer_norm then two GEMMs: one kernel step, two library calls, in group order (Float: the gelu a kernel between them)', () => {
    const p = planOf(mlp(true, 'relu'));
    expect(p.segments.map((s) => s.kind)).toEqual(['kernel', 'libraryCall', 'libraryCall']);
    expect(p.steps).toHaveLength(1);
    expect(p.libraryCalls.map((c) => c.kernel.params.epilogue.kind)).toEqual(['RELU_BIAS', 'BIAS']);
    expect(p.sequence).toEqual([{ kind: 'kernel', index: 0 }, { kind: 'libraryCall', index: 0 }, { kind: 'libraryCall', index: 1 }]);
    // cuBLASLt's f32 GELU is not fused (outside PyTorch's float32 tolerance): a kernel after the BIAS GEMM
    const g = planOf(mlp(true, 'gelu'));
    expect(g.segments.map((s) => s.kind)).toEqual(['kernel', 'libraryCall', 'kernel', 'libraryCall']);
    expect(g.libraryCalls.map((c) => c.kernel.params.epilogue.kind)).toEqual(['BIAS', 'BIAS']);
    // the second GEMM's segment is the plan's record itself
    expect(p.segments[2]).toBe(p.libraryCalls[1]?.kernel);
  });

  it("running the plan's sequence (library calls on a host GemmLibrary) computes the MLP as the reference does", () => {
    const fusion = mlp(false, 'relu');
    const p = planOf(fusion);
    expect(p.sequence.map((e) => e.kind)).toEqual(['libraryCall', 'libraryCall']);
    let state = SEED >>> 0;
    const random = (): number => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state / 4294967296 - 0.5;
    };
    const memory = new HostMemory();
    const argBuffers: GemmBuffer[] = SIZES.map((sizes) => {
      const n = sizes.reduce((a, b) => a * b, 1);
      const ptr = memory.alloc(n);
      for (let i = 0; i < n; i += 1) memory.write(ptr, i, Math.fround(random()));
      return { dataPtr: ptr, sizes, strides: dense(sizes) };
    });
    const planBuffers: GemmBuffer[] = p.buffers.map((b) => ({ dataPtr: memory.alloc(b.layout.sizes.reduce((x, y) => x * y, 1)), sizes: b.layout.sizes, strides: b.layout.strides }));
    const bufferOf = (r: PlanRef): GemmBuffer => {
      if (r.kind === 'arg') return argBuffers[r.index] as GemmBuffer;
      if (r.kind === 'buffer') return planBuffers[r.index] as GemmBuffer;
      throw new Error('no views in this plan');
    };
    const gemm = new HostGemm(memory);
    for (const entry of p.sequence) {
      if (entry.kind !== 'libraryCall') throw new Error('this plan has no kernels');
      const call = p.libraryCalls[entry.index];
      if (call === undefined) throw new Error('missing call');
      runLibraryCall(call.kernel, call.refs.slice(0, call.inputCount).map(bufferOf), call.refs.slice(call.inputCount).map(bufferOf), { gemm });
    }
    const hosts = argBuffers.map((b) => {
      const n = b.sizes.reduce((x, y) => x * y, 1);
      return HostTensor.fromValues('Float', b.sizes, Array.from({ length: n }, (_, i) => memory.read(b.dataPtr, i)));
    });
    const [expected] = evaluate(fusion, hosts) as HostTensor[];
    const out = bufferOf(p.outputs[0] as PlanRef);
    let err = 0;
    for (let i = 0; i < (expected as HostTensor).numel; i += 1) {
      const want = Number((expected as HostTensor).get(i));
      err = Math.max(err, Math.abs(memory.read(out.dataPtr, i) - want) / (1 + Math.abs(want)));
    }
    expect(err, `seed ${SEED}`).toBeLessThan(1e-5);
    expect(gemm.calls.map((c) => c.epilogue?.kind)).toEqual(['RELU_BIAS', 'BIAS']);
  });
});
