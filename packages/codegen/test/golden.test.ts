// Golden `cuda_kernel` / `kernel_ir` / `scheduler_params` dumps for the two seed examples.
import { fileURLToPath } from 'node:url';
import { checkGolden } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { compileFusion } from '../src/index.js';
import { batchNormAddRelu, broadcastAddMul } from '@tsfuser/test-support';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/codegen/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, text: string): void {
  const r = checkGolden(text, `${dir}${name}`, update);
  expect(r.diff).toBe('');
}

describe('golden dumps', () => {
  it('(t0 + t1) * 3 with t0 [64,1,8192], t1 [64,512,8192]', () => {
    const f = broadcastAddMul();
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [64, 1, 8192] }, { sizes: [64, 512, 8192] }]));
    golden('broadcast_add_mul.cuda_kernel.txt', k.dumps.cuda);
    golden('broadcast_add_mul.kernel_ir.txt', k.dumps.kernelIr);
    golden('broadcast_add_mul.scheduler_params.txt', k.dumps.schedulerParams + k.dumps.launchParams);
  });

  it('inference batch norm + add + relu', () => {
    const f = batchNormAddRelu();
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [32, 64, 56, 56] }, { sizes: [32, 64, 56, 56] }, { sizes: [64] }, { sizes: [64] }, { sizes: [64] }, { sizes: [64] }]));
    golden('batchnorm_add_relu.cuda_kernel.txt', k.dumps.cuda);
    golden('batchnorm_add_relu.scheduler_params.txt', k.dumps.schedulerParams + k.dumps.launchParams);
  });
});
