import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { DataType, FusionCache, FusionDefinition, InputMismatchError, Tensor, referenceBackend, type Backend } from '../src/index.js';

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

  describe('stride-ordered and None (expanded) inputs, as nvFuser declares them', () => {
    const strided = (sizes: number[], strides: number[], span: number): Tensor => Tensor.fromHost(new HostTensor('Float', sizes, strides, new Float32Array(span)));
    /**
     * T0: [N, C, H, W] channels-last (stride_order [3, 0, 2, 1]); T1: memory order dim 0, dim 2,
     * dim 1 (stride_order [2, 0, 1]) with contiguity per allocation position: dim 2 (contiguity[1]) expanded.
     */
    const layouts = (): FusionDefinition =>
      FusionDefinition.build((fd) => {
        const t0 = fd.defineTensor({ shape: [-1, -1, -1, -1], contiguity: [true, true, true, true], strideOrder: [3, 0, 2, 1] });
        const t1 = fd.defineTensor({ shape: [-1, -1, -1], contiguity: [true, null, true], strideOrder: [2, 0, 1] });
        fd.addOutput(fd.ops.neg(t0));
        fd.addOutput(fd.ops.abs(t1));
      }, { cache: new FusionCache() });
    const channelsLast = (): Tensor => strided([2, 3, 4, 5], [60, 1, 15, 3], 120);
    const t1ok = (): Tensor => strided([2, 6, 3], [6, 1, 0], 12);
    // A GPU backend stand-in: the checks run before any backend, so it must never be reached.
    const reached: string[] = [];
    const fakeGpu: Backend = { name: 'gpu', availability: () => ({ available: true }), run: (f, i, o) => (reached.push('gpu'), referenceBackend.run(f, i, o)) };
    async function error(inputs: Tensor[]): Promise<[number, string]> {
      for (const backend of ['reference', fakeGpu] as const) {
        try {
          await layouts().execute(inputs, { backend });
        } catch (e) {
          if (!(e instanceof InputMismatchError)) throw e;
          if (backend !== 'reference') return [e.inputIndex, e.message];
          continue;
        }
        throw new Error('expected an InputMismatchError');
      }
      throw new Error('unreachable');
    }

    it('accepts the layouts they declare', async () => {
      const [a, b] = await layouts().execute([channelsLast(), t1ok()], { backend: 'reference' });
      expect(a?.sizes).toEqual([2, 3, 4, 5]);
      expect(b?.sizes).toEqual([2, 6, 3]);
    });

    it('names the input, the dim, the contiguity entry and the stride order when the memory order differs', async () => {
      const nchw = strided([2, 3, 4, 5], [60, 20, 5, 1], 120);
      expect(await error([nchw, t1ok()])).toEqual([0, 'input 0: T0 dim 1 is declared contiguous (contiguity[3]), so its stride must be 1, got 20 (strides [60, 20, 5, 1], stride order [3, 0, 2, 1])']);
      const swapped = strided([2, 6, 3], [1, 2, 0], 12);
      expect(await error([channelsLast(), swapped])).toEqual([1, 'input 1: T1 dim 1 is declared contiguous (contiguity[2]), so its stride must be 1, got 2 (strides [1, 2, 0], stride order [2, 0, 1])']);
      const gap = strided([2, 6, 3], [7, 1, 0], 14);
      expect(await error([channelsLast(), gap])).toEqual([1, 'input 1: T1 dim 0 is declared contiguous (contiguity[0]), so its stride must be 6, got 7 (strides [7, 1, 0], stride order [2, 0, 1])']);
      expect(reached).toEqual([]);
    });

    it('names the input and the dim declared expanded (None) when it has a stride', async () => {
      const dense = strided([2, 6, 3], [18, 3, 1], 36);
      expect(await error([channelsLast(), dense])).toEqual([1, 'input 1: T1 dim 2 is declared expanded (contiguity None), so its stride must be 0, got 1 (strides [18, 3, 1])']);
      // Size 1 on the expanded dim: no stride matters (as PyTorch).
      const [, b] = await layouts().execute([channelsLast(), strided([2, 6, 1], [6, 1, 7], 12)], { backend: 'reference' });
      expect(b?.sizes).toEqual([2, 6, 1]);
      expect(reached).toEqual([]);
    });
  });
  it('takes an empty tensor for an expanded (None) dim whatever its strides (no element to read)', async () => {
    // nvFuser's test_pad_expanded_empty: torch.randn(0).as_strided((2, 0, 3), (0, 0, 0)) and
    // dense strides alike fit contiguity [None, None, None]; the pad still gives the padded size.
    const fd = FusionDefinition.build((f) => {
      const t0 = f.defineTensor({ shape: [-1, -1, -1], contiguity: [null, null, null], dtype: DataType.Double });
      f.addOutput(f.ops.pad(t0, [0, 0, 1, 1, 1, 0], f.defineScalar(-3.5, DataType.Double)));
    }, { cache: new FusionCache() });
    for (const strides of [[0, 0, 0], [3, 3, 1]]) {
      const empty = Tensor.fromHost(new HostTensor('Double', [2, 0, 3], strides, new Float64Array(0)));
      const [out] = await fd.execute([empty], { backend: 'reference' });
      expect(out?.sizes, `strides [${strides.join(', ')}]`).toEqual([3, 2, 3]);
      expect(out?.toHost().toNumbers()).toEqual(new Array<number>(18).fill(-3.5));
    }
    // With elements, an expanded dim with a stride is still refused.
    const strided = Tensor.fromHost(new HostTensor('Double', [2, 2, 3], [3, 3, 1], new Float64Array(9)));
    await expect(fd.execute([strided], { backend: 'reference' })).rejects.toThrow(/T0 dim 0 is declared expanded/);
  });

  describe('on a cached call (the same tensors again)', () => {
    it('still rejects a new tensor after accepting another one for the same input, and a wrong scalar', async () => {
      const fd = definition();
      const good = ok();
      for (let i = 0; i < 3; i += 1) expect((await fd.execute([good, 2], { backend: 'reference' }))[0]?.sizes).toEqual([2, 1, 3]);
      const wide = Tensor.from(new Float32Array(12), [2, 2, 3], 'Float');
      await expect(fd.execute([wide, 2], { backend: 'reference' })).rejects.toThrow(/T0 dim 1 is a broadcast dim and must have size 1, got size 2/);
      await expect(fd.execute([good, 'x' as unknown as number], { backend: 'reference' })).rejects.toBeInstanceOf(InputMismatchError);
      // Swapping the remembered tensor into a scalar slot is still a mismatch.
      await expect(fd.execute([good, good], { backend: 'reference' })).rejects.toThrow(/S1 expects a Double scalar, got a Float tensor/);
    });

    it('reports bad inputs as a rejection, never a synchronous throw', () => {
      const fd = definition();
      let call: Promise<Tensor[]> | undefined;
      expect(() => {
        call = fd.execute(null as unknown as Tensor[], { backend: 'reference' });
      }).not.toThrow();
      return expect(call).rejects.toThrow(/inputs must be an array/);
    });
  });
});
