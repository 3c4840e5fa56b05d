// The persistent-reshape part of the shape-ops GPU suite (shape-ops-suite.ts, issue 20): the
// persistent reshape fixtures of @tsfuser/test-support (reshapes before, between and after the
// row reductions of inner / outer / inner-outer persistent kernels), random ones (one persistent
// kernel each) and sizes the CPU simulator cannot take — the attention prologue reshape
// [B, S, H·D] → [B·S, H·D] + layer_norm(weight, bias) + reshape back in BFloat16 and Float, and
// softmax over heads split out of a batch dim — where the reshaped input is read with vectors —
// and the vector reshape fixtures (persistent-reshape-vector-fixtures.ts: outputs written through
// a reshape of the row with the row's vector stores).
import {
  persistentReshapeFixtures, randomPersistentReshapeCase, reshapeLayerNormPrologue, vectorReshapeFixtures, type ShapeOpsFixture,
} from '@tsfuser/test-support';

export { persistentReshapeFixtures };

export function randomPersistentReshapeFixtures(seed: number, count: number): ShapeOpsFixture[] {
  return Array.from({ length: count }, (_, k) => {
    const c = randomPersistentReshapeCase(seed + 300000 + k);
    return { name: `random persistent reshape ${seed + 300000 + k} (${c.description})`, fusion: c.fusion, inputs: () => c.inputs, segments: c.segments };
  });
}

export function largePersistentReshapeCases(): ShapeOpsFixture[] {
  return [
    reshapeLayerNormPrologue('BFloat16', 4, 256, 4096, 'large_reshape_layer_norm_reshape_BFloat16'),
    reshapeLayerNormPrologue('Float', 2, 128, 4096, 'large_reshape_layer_norm_reshape_Float'),
    reshapeLayerNormPrologue('BFloat16', 3, 100, 1000, 'large_reshape_layer_norm_reshape_BFloat16_odd'),
    ...vectorReshapeFixtures(),
  ];
}
