// The GPT-MLP backward (linear -> gelu(tanh) -> linear: grads of the input, both weights and both
// biases) as one compile plan on the fake H100: the dgrad GEMM of the second linear carries the
// gelu backward and the first bias's gradient as cuBLASLt's DGELU_BGRAD epilogue (the saved
// pre-activation read as its aux), dW2 = matmul(permute(dY), g) reads dY transposed in place
// and computes db2 = sum(dY, 0) as its BGRADA epilogue, the other GEMMs are plain calls reading
// the transposed operands in place (no generated kernel left), and --explain's reasons name
// every remaining boundary. The whole plan —
// library calls on the host GemmLibrary, generated-kernel segments on the reference evaluator
// of their segment fusions, views as strided reads of their base — computes what the float64
// reference evaluator computes for the whole fusion (random inputs, seed printed on failure).
import { evaluate, Fusion, geluBackward, HostTensor, makeTensor, matmul, permute, sum, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, fusionIrSegmentsToString, H100_PROPERTIES, makeRuntimeInfo, MatmulScheduler, segmentationPlanner, type SchedulerRegistry } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { buildCompilePlan, runLibraryCall, type CompilePlan, type GemmBuffer, type PlannedArgument, type PlanRef } from '../src/index.js';
import { HostGemm, HostMemory } from './host-gemm.js';

const SEED = Number(process.env.SEED ?? Date.now() % 1_000_000);
const [T, H, F] = [12, 8, 16];

function input(f: Fusion): TensorView {
  const tv = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
  f.addInput(tv);
  return tv;
}

/** x [T,H], W1 [F,H], W2 [H,F], the saved pre-activation [T,F] and gelu(pre) [T,F] (GELU_AUX_BIAS's two outputs), dY [T,H]. */
function mlpBackward(): Fusion {
  const f = new Fusion();
  const [x, w1, w2, pre, g, dy] = [input(f), input(f), input(f), input(f), input(f), input(f)];
  const dPre = geluBackward(matmul(dy, w2), pre, 'tanh');
  f.addOutput(matmul(dPre, w1)); // dX
  f.addOutput(matmul(permute(dPre, [1, 0]), x)); // dW1
  f.addOutput(sum(dPre, [0])); // db1
  f.addOutput(matmul(permute(dy, [1, 0]), g)); // dW2
  f.addOutput(sum(dy, [0])); // db2
  return f;
}

const SIZES = [[T, H], [F, H], [H, F], [T, F], [T, F], [T, H]];

function dense(sizes: readonly number[]): number[] {
  const s = new Array<number>(sizes.length).fill(1);
  for (let i = sizes.length - 2; i >= 0; i -= 1) s[i] = (s[i + 1] as number) * (sizes[i + 1] as number);
  return s;
}

function planOf(fusion: Fusion, registry: SchedulerRegistry): CompilePlan {
  const info = makeRuntimeInfo(fusion, SIZES.map((sizes) => ({ sizes, alignment: 256 })), H100_PROPERTIES);
  const args: PlannedArgument[] = SIZES.map((sizes) => ({ kind: 'tensor', sizes, strides: dense(sizes), alignment: 256 }));
  return buildCompilePlan(fusion, args, H100_PROPERTIES, info, segmentationPlanner(registry)(fusion, info), { registry });
}

describe(`GPT-MLP backward plan, with and without cuBLASLt's backward epilogues (seed ${SEED})`, () => {
  it.each([
    ['opted in (MatmulScheduler({ backwardEpilogues: true })): the dgrad GEMM is DGELU_BGRAD (gelu backward + db1 fused), dW2 BGRADA', true],
    ['by default: four plain GEMMs, the gelu backward and the bias gradients as generated kernels', false],
  ] as const)('%s; every boundary has its reason, and the plan computes the reference values', (_name, fused) => {
    const fusion = mlpBackward();
    const registry = fused ? defaultSchedulerRegistry().replacing(new MatmulScheduler({ backwardEpilogues: true })) : defaultSchedulerRegistry();
    const p = planOf(fusion, registry);
    const epilogues = p.libraryCalls.map((c) => c.kernel.params.epilogue.kind);
    expect(p.libraryCalls).toHaveLength(4);
    if (fused) {
      // dW2 = matmul(permute(dY), g) reads dY transposed in place and sums it over K (= db2): BGRADA
      expect([...epilogues].sort()).toEqual(['BGRADA', 'DEFAULT', 'DEFAULT', 'DGELU_BGRAD']);
      expect(p.steps).toHaveLength(0);
      const bgrad = p.libraryCalls.find((c) => c.kernel.params.epilogue.kind === 'BGRADA')?.kernel.params;
      expect(bgrad?.a.transposed).toBe(true);
      expect(bgrad?.a.copy).toBeNull();
      expect([bgrad?.m, bgrad?.n, bgrad?.k]).toEqual([H, F, T]);
    } else {
      expect(epilogues).toEqual(['DEFAULT', 'DEFAULT', 'DEFAULT', 'DEFAULT']);
      expect(p.steps.length).toBeGreaterThan(0);
    }
    const explain = p.segmentation.segmented === undefined ? '' : fusionIrSegmentsToString(p.segmentation.segmented);
    // the remaining boundaries say why: one GEMM per segment
    expect(explain).toContain('a GEMM segment holds one matmul or linear');
    // run the plan on the host
    let state = SEED >>> 0;
    const random = (): number => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state / 4294967296 - 0.5;
    };
    const memory = new HostMemory();
    const argBuffers: GemmBuffer[] = SIZES.map((sizes) => {
      const n = sizes.reduce((a, b) => a * b, 1);
      const ptr = memory.alloc(n);
      for (let i = 0; i < n; i += 1) memory.write(ptr, i, Math.fround(random() * 2));
      return { dataPtr: ptr, sizes, strides: dense(sizes) };
    });
    const planBuffers: GemmBuffer[] = p.buffers.map((b) => {
      const n = b.layout.sizes.reduce((x, y) => x * y, 1);
      const ptr = memory.alloc(n);
      for (let i = 0; i < n; i += 1) memory.write(ptr, i, Number.NaN); // poisoned
      return { dataPtr: ptr, sizes: b.layout.sizes, strides: b.layout.strides };
    });
    const bufferOf = (r: PlanRef): GemmBuffer => {
      if (r.kind === 'arg') return argBuffers[r.index] as GemmBuffer;
      if (r.kind === 'buffer') return planBuffers[r.index] as GemmBuffer;
      const v = p.views[r.index];
      if (v === undefined) throw new Error(`no view ${r.index}`);
      const base = bufferOf(v.base);
      return { dataPtr: base.dataPtr + BigInt(v.offset), sizes: v.layout.sizes, strides: v.layout.strides };
    };
    const hostOf = (b: GemmBuffer): HostTensor => {
      const span = b.sizes.reduce((acc, s, i) => acc + (s - 1) * (b.strides[i] as number), 0) + 1;
      const flat = HostTensor.fromValues('Float', [span], Array.from({ length: span }, (_, i) => memory.read(b.dataPtr, i)));
      return new HostTensor('Float', b.sizes, b.strides, flat.data);
    };
    const gemm = new HostGemm(memory);
    for (const entry of p.sequence) {
      if (entry.kind === 'libraryCall') {
        const call = p.libraryCalls[entry.index];
        if (call === undefined) throw new Error('missing call');
        runLibraryCall(call.kernel, call.refs.slice(0, call.inputCount).map(bufferOf), call.refs.slice(call.inputCount).map(bufferOf), { gemm });
      } else if (entry.kind === 'kernel') {
        const step = p.steps[entry.index];
        if (step === undefined) throw new Error('missing step');
        const outs = evaluate(step.kernel.fusion, step.refs.slice(0, step.inputCount).map((r) => hostOf(bufferOf(r)))) as HostTensor[];
        step.refs.slice(step.inputCount).forEach((r, o) => {
          const b = bufferOf(r);
          const t = outs[o] as HostTensor;
          for (let i = 0; i < t.numel; i += 1) memory.write(b.dataPtr, i, Number(t.get(i)));
        });
      } else throw new Error('no attention here');
    }
    const expected = evaluate(fusion, argBuffers.map(hostOf)) as HostTensor[];
    expected.forEach((want, o) => {
      const got = bufferOf(p.outputs[o] as PlanRef);
      let err = 0;
      for (let i = 0; i < want.numel; i += 1) {
        const w = Number(want.get(i));
        const v = memory.read(got.dataPtr, i);
        err = Math.max(err, Number.isNaN(v) ? Infinity : Math.abs(v - w) / (1 + Math.abs(w)));
      }
      expect(err, `output ${o}, seed ${SEED}`).toBeLessThan(1e-5);
    });
  });
});
