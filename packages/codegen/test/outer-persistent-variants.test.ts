// Outer persistent codegen on fusions beyond the batch-norm fixtures: two full-size inputs, a
// per-channel bias broadcast over the reduced dim, a max reduction, keepdim means, an
// intermediate tensor as an extra output, 3-D inputs reducing [0, 1]. Each: picked by the
// registry [pointwise, reduction, outer_persistent], simulated on the CPU against the reference evaluator (fresh random inputs),
// and compiled with nvcc -ptx -arch=sm_90.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  add, broadcast, cast, evaluate, exp, Fusion, HostTensor, makeTensor, max, mean, mul, sub, sum, type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, type RuntimeInfo } from '@tsfuser/scheduler';
import { compileFusion, lowerFusion, runtimeLibrary, withCLinkage } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { outerPersistentRegistry, seededRandom, testSeed } from '@tsfuser/test-support';

const NVCC = process.env.NVCC ?? '/usr/local/bin/nvcc';
const run = promisify(execFile);

interface Variant {
  name: string;
  fusion: Fusion;
  sizes: number[][];
  info: RuntimeInfo;
}

function variant(name: string, shapes: number[][], dtype: DataType, body: (f: Fusion, ins: TensorView[]) => TensorView[]): Variant {
  const f = new Fusion();
  const ins = shapes.map((s) => {
    const t = makeTensor(f, { shape: s.map(() => -1), dtype });
    f.addInput(t);
    return t;
  });
  for (const o of body(f, ins)) f.addOutput(o);
  return { name, fusion: f, sizes: shapes, info: makeRuntimeInfo(f, shapes.map((s) => ({ sizes: s }))) };
}

const f32 = (t: TensorView): TensorView => (t.dtype === 'Float' ? t : cast(t, 'Float'));

function variants(): Variant[] {
  return [
    variant('two_inputs', [[37, 45], [37, 45]], 'Float', (_f, [x, y]) => {
      const p = mul(x as TensorView, y as TensorView);
      return [sub(p, broadcast(mean(p, [0]), [true, false]))];
    }),
    variant('bias_then_max', [[100, 70], [70]], 'Half', (_f, [x, b]) => {
      const v = add(f32(x as TensorView), broadcast(f32(b as TensorView), [true, false]));
      const e = exp(sub(v, broadcast(max(v, [0]), [true, false])));
      return [cast(mul(e, broadcast(sum(e, [0]), [true, false])), 'Half')];
    }),
    variant('keepdim_and_intermediate', [[513, 9]], 'BFloat16', (_f, [x]) => {
      const xf = f32(x as TensorView);
      const mu = mean(xf, [0], true);
      const xm = sub(xf, mu);
      return [cast(xm, 'BFloat16'), mu, sum(mul(xm, xm), [0])];
    }),
    variant('three_d', [[6, 11, 40]], 'Float', (_f, [x]) => [sub(x as TensorView, broadcast(sum(x as TensorView, [0, 1]), [true, true, false]))]),
  ];
}

describe('outer persistent codegen: variants', () => {
  it('simulated against the reference evaluator', () => {
    for (const v of variants()) {
      const reg = outerPersistentRegistry();
      const pick = reg.tryPick(v.fusion, v.info);
      expect(pick.scheduler?.type, `${v.name}: ${pick.rejected.map((r) => r.reason).join('; ')}`).toBe('outer_persistent');
      const compiled = compileFusion(v.fusion, v.info, { registry: reg });
      const scheduled = reg.get('outer_persistent').schedule(v.fusion.clone().fusion, compiled.params);
      const kernel = lowerFusion(scheduled, { kernelName: compiled.kernelName, maxThreadsPerBlock: compiled.launch.block[0] * compiled.launch.block[1] });
      const seed = testSeed();
      const rand = seededRandom(seed);
      const inputs = v.fusion.inputs.map((t, i) => {
        const sizes = v.sizes[i] as number[];
        const n = sizes.reduce((a, b) => a * b, 1);
        return HostTensor.fromValues((t as TensorView).dtype, sizes, Array.from({ length: n }, () => (rand() - 0.5) * 4));
      });
      const want = evaluate(v.fusion, inputs) as HostTensor[];
      const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
      const got = simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
      want.forEach((w, i) => {
        const g = (got[i] as HostTensor).toNumbers();
        const tol = w.dtype === 'Half' ? 2e-3 : w.dtype === 'BFloat16' ? 1.6e-2 : 1e-5;
        const scale = w.toNumbers().reduce((m, x) => Math.max(m, Math.abs(x)), 1);
        w.toNumbers().forEach((x, k) => {
          expect(Math.abs((g[k] as number) - x) <= tol * scale, `${v.name} (inputs: seed ${seed}) output ${i} element ${k}: got ${g[k]}, want ${x}`).toBe(true);
        });
      });
    }
  });

  it.skipIf(!existsSync(NVCC))('compile with nvcc -ptx -arch=sm_90', async () => {
    const kernels = variants().map((v, i) => compileFusion(v.fusion, v.info, { fusionId: 58000 + i, registry: outerPersistentRegistry() }));
    const file = join(mkdtempSync(join(tmpdir(), 'tsfuser-nvcc-outer-v-')), 'v.cu');
    writeFileSync(file, `${runtimeLibrary('Int32', { fastDivision: kernels.some((k) => k.args.divisors !== null) })}\n${kernels.map((k) => withCLinkage(k.dumps.cuda)).join('\n')}`);
    await run(NVCC, ['-ptx', '-arch=sm_90', '-std=c++17', file, '-o', `${file}.ptx`], { maxBuffer: 1 << 24 }).catch((e: { stderr?: string }) => {
      throw new Error(`nvcc failed on ${file}:\n${(e.stderr ?? '').slice(0, 4000)}`);
    });
  }, 300_000);
});
