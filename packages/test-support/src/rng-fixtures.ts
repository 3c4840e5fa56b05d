// Fusions with random numbers for codegen tests (simulation, nvcc, GPU suite): rand alone,
// dropout as nvFuser composes it, a normal added to an input, uniform ranges in 16-bit types.
import { add, cast, dropout, Fusion, layerNorm, makeTensor, mul, normal, rand, randLike, randnLike, uniform, type DataType } from '@tsfuser/fusion-ir';

export interface RngCase {
  name: string;
  fusion: Fusion;
  /** Sizes of the tensor inputs (empty when the fusion has none). */
  inputSizes: number[][];
  inputDtype: DataType;
}

function withInput(dtype: DataType, rank: number, build: (f: Fusion, x: ReturnType<typeof makeTensor>) => void): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(x);
  build(f, x);
  return f;
}

/** The RNG fixtures for one problem size [rows, cols]. */
export function rngCases(rows: number, cols: number): RngCase[] {
  const seed = { rngSeed: 0x5eed, rngOffset: 12 };
  const cases: RngCase[] = [];
  for (const dtype of ['Float', 'Double', 'Half', 'BFloat16'] as const) {
    const f = new Fusion();
    f.addOutput(rand(f, [rows, cols], dtype, seed));
    cases.push({ name: `rand_${dtype}`, fusion: f, inputSizes: [], inputDtype: dtype });
  }
  for (const dtype of ['Float', 'Half', 'BFloat16'] as const) {
    cases.push({
      name: `dropout_${dtype}`,
      fusion: withInput(dtype, 2, (f, x) => f.addOutput(dropout(x, 0.25, true, seed))),
      inputSizes: [[rows, cols]],
      inputDtype: dtype,
    });
  }
  cases.push({
    name: 'randn_like_add_Double',
    fusion: withInput('Double', 2, (f, x) => f.addOutput(add(x, randnLike(x, seed)))),
    inputSizes: [[rows, cols]],
    inputDtype: 'Double',
  });
  cases.push({
    name: 'normal_general_Float',
    fusion: withInput('Float', 2, (f, x) => f.addOutput(mul(x, normal(f, [rows, cols], 1.5, 0.25, 'Float', seed)))),
    inputSizes: [[rows, cols]],
    inputDtype: 'Float',
  });
  for (const dtype of ['Float', 'Double', 'Half', 'BFloat16'] as const) {
    const f = new Fusion();
    f.addOutput(uniform(f, [rows, cols], -2, 3, dtype, seed));
    cases.push({ name: `uniform_range_${dtype}`, fusion: f, inputSizes: [], inputDtype: dtype });
  }
  cases.push({
    name: 'two_rand_like_Float',
    fusion: withInput('Float', 2, (f, x) => {
      f.addOutput(add(randLike(x, seed), randLike(x, { rngSeed: 0x5eed, rngOffset: 13 })));
    }),
    inputSizes: [[rows, cols]],
    inputDtype: 'Float',
  });
  return cases;
}

/**
 * The transformer-block workload: dropout (p = 0.1) of x, a residual add, layer_norm over
 * the last dim, in bf16 with Float math — one inner persistent kernel.
 */
export function dropoutResidualLayerNorm(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
  const residual = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
  f.addInput(x);
  f.addInput(residual);
  const y = add(cast(dropout(x, 0.1, true, { rngSeed: 0x5eed, rngOffset: 12 }), 'Float'), cast(residual, 'Float'));
  f.addOutput(cast(layerNorm(y, 1, null, null, 1e-5).output, 'BFloat16'));
  return f;
}
