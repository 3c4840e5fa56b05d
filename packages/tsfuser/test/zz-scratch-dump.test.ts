import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { compileFusion } from '@tsfuser/codegen';
import { FusionDefinition } from '../src/definition/fusion-definition.js';
import { reshapeLayerNormDefinition } from '../src/bench/reshape-workloads.js';

function plain(rows: number, hd: number): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const x = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'BFloat16' });
    const w = fd.defineTensor({ shape: [-1], contiguity: [true], dtype: 'BFloat16' });
    const bias = fd.defineTensor({ shape: [-1], contiguity: [true], dtype: 'BFloat16' });
    const r = fd.ops.cast(x, 'Float');
    const [variance, mean] = fd.ops.varMean(r, [1], 0, false);
    const shape = r.shape();
    const invstd = fd.ops.rsqrt(fd.ops.add(fd.ops.broadcastInDim(variance, shape, [0]), fd.defineConstant(1e-5)));
    const normed = fd.ops.mul(fd.ops.sub(r, fd.ops.broadcastInDim(mean, shape, [0])), invstd);
    const wf = fd.ops.cast(fd.ops.broadcastInDim(w, shape, [1]), 'Float');
    const bf = fd.ops.cast(fd.ops.broadcastInDim(bias, shape, [1]), 'Float');
    fd.addOutput(fd.ops.cast(fd.ops.add(fd.ops.mul(normed, wf), bf), 'BFloat16'));
  });
}

it('dump', () => {
  const [B, S, H] = [8, 4096, 4096];
  const f1 = reshapeLayerNormDefinition(B, S, H).fusionIr();
  const k1 = compileFusion(f1, makeRuntimeInfo(f1, [[B, S, H], [H], [H]].map((s) => ({ sizes: s }))));
  writeFileSync('/tmp/prologue/reshaped.cu', k1.source);
  writeFileSync('/tmp/prologue/reshaped.txt', k1.dumps.schedulerParams + '\n' + k1.dumps.fusionIr + '\n' + k1.dumps.kernelIr);
  const f2 = plain(B * S, H).fusionIr();
  const k2 = compileFusion(f2, makeRuntimeInfo(f2, [[B * S, H], [H], [H]].map((s) => ({ sizes: s }))));
  writeFileSync('/tmp/prologue/plain.cu', k2.source);
  writeFileSync('/tmp/prologue/plain.txt', k2.dumps.schedulerParams + '\n' + k2.dumps.fusionIr + '\n' + k2.dumps.kernelIr);
});
