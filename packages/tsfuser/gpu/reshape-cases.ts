// The reshape part of the shape-ops GPU suite (shape-ops-suite.ts): the reshape fixtures of
// @tsfuser/test-support, random reshape fusions (one pointwise kernel each) and a few sizes the
// CPU simulator cannot take — the GPT-NeoX attention prologue [B, S, 3·H·D] → [B, S, H, 3, D]
// and a reshape + pointwise + reshape round trip at realistic sizes, in Half and BFloat16.
import { add, cast, Fusion, makeTensor, mul, reshape, size } from '@tsfuser/fusion-ir';
import { randomReshapeCase, randomTensor, reshapeFixtures, type ShapeOpsFixture } from '@tsfuser/test-support';

export { reshapeFixtures };

export function randomReshapeFixtures(seed: number, count: number): ShapeOpsFixture[] {
  return Array.from({ length: count }, (_, k) => {
    const c = randomReshapeCase(seed + 200000 + k);
    return { name: `random reshape ${seed + 200000 + k} (${c.description})`, fusion: c.fusion, inputs: () => c.inputs, segments: c.segments };
  });
}

export function largeReshapeCases(): ShapeOpsFixture[] {
  const out: ShapeOpsFixture[] = [];
  for (const dtype of ['Half', 'BFloat16'] as const) {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1, -1], dtype });
    f.addInput(x);
    const qkv = reshape(cast(x, 'Float'), [size(x, 0), size(x, 1), 16, 3, 64]);
    f.addOutput(cast(mul(qkv, 0.125), dtype));
    out.push({ name: `large_gpt_neox_qkv_${dtype}`, fusion: f, inputs: (r) => [randomTensor(dtype, [4, 512, 3 * 16 * 64], r)], segments: 'pointwise' });
  }
  {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
    f.addInput(x);
    const heads = reshape(mul(x, 2), [size(x, 0), 32, -1]);
    f.addOutput(reshape(add(heads, 1), [size(x, 0), -1]));
    out.push({ name: 'large_reshape_round_trip', fusion: f, inputs: (r) => [randomTensor('Float', [2048, 4096], r)], segments: 'pointwise' });
  }
  return out;
}
