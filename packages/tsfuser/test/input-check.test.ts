import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { DataType, FusionCache, FusionDefinition, InputMismatchError, Tensor } from '../src/index.js';

function definition(): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const t0 = fd.defineTensor({ shape: [-1, 1, -1], contiguity: [true, null, true], dtype: DataType.Float });
    const s1 = fd.defineScalar(null, DataType.Double);
    fd.addOutput(fd.ops.mul(t0, s1));
  }, { cache: new FusionCache() });
}

async function mismatch(inputs: (Tensor | number)[]): Promise<InputMismatchError> {
  try {
    await definition().execute(inputs, { backend: 'reference' });
  } catch (e) {
    if (e instanceof InputMismatchError) return e;
    throw e;
  }
  throw new Error('expected an InputMismatchError');
}

const ok = (): Tensor => Tensor.from(new Float32Array(6), [2, 1, 3], 'Float');

describe('execute input checks', () => {
  it('accepts matching inputs', async () => {
    const [out] = await definition().execute([ok(), 2], { backend: 'reference' });
    expect(out?.sizes).toEqual([2, 1, 3]);
  });

  it('names the input index and what differs', async () => {
    const count = await mismatch([ok()]);
    expect(count.inputIndex).toBe(1);
    expect(count.message).toMatch(/input 1: missing \(S1: Double scalar\)/);

    const dtype = await mismatch([Tensor.from(new Float64Array(6), [2, 1, 3], 'Double'), 2]);
    expect([dtype.inputIndex, dtype.detail]).toEqual([0, 'T0 expects dtype Float, got Double']);

    const rank = await mismatch([Tensor.from(new Float32Array(6), [2, 3], 'Float'), 2]);
    expect(rank.message).toMatch(/input 0: T0 expects rank 3/);

    const broadcast = await mismatch([Tensor.from(new Float32Array(12), [2, 2, 3], 'Float'), 2]);
    expect(broadcast.message).toBe('input 0: T0 dim 1 is a broadcast dim and must have size 1, got size 2');

    const scalar = await mismatch([ok(), ok()]);
    expect(scalar.message).toMatch(/input 1: S1 expects a Double scalar, got a Float tensor/);
  });

  it('checks strides against the declared contiguity', async () => {
    // [2, 1, 3] viewed with a gap between rows: stride 4 instead of 3 for dim 0.
    const gapped = Tensor.fromHost(new HostTensor('Float', [2, 1, 3], [4, 3, 1], new Float32Array(8)));
    const e = await mismatch([gapped, 2]);
    expect(e.message).toMatch(/input 0: T0 dim 0 is declared contiguous \(contiguity\[0\]\), so its stride must be 3, got 4/);
    const transposed = Tensor.fromHost(new HostTensor('Float', [2, 1, 3], [1, 1, 2], new Float32Array(6)));
    expect((await mismatch([transposed, 2])).message).toMatch(/dim 2 is declared contiguous \(contiguity\[2\]\), so its stride must be 1, got 2/);
  });
});
