// Golden `kernel_ir` / `cuda_kernel` dumps of a dropout kernel (bf16 [1024, 4096], vectorized and
// unrolled): the Rng statement, its linear index and the Philox helper call. `UPDATE_GOLDEN=1`
// rewrites them.
import { fileURLToPath } from 'node:url';
import { checkGolden } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { compileFusion } from '../src/index.js';
import { rngCases, type RngCase } from '@tsfuser/test-support';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/codegen/rng/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

describe('golden RNG dumps', () => {
  it('dropout bf16 [1024, 4096]', () => {
    const c = rngCases(1024, 4096).find((x) => x.name === 'dropout_BFloat16') as RngCase;
    const k = compileFusion(c.fusion, makeRuntimeInfo(c.fusion, [{ sizes: [1024, 4096] }]));
    for (const [name, text] of [['dropout_bf16.kernel_ir.txt', k.dumps.kernelIr], ['dropout_bf16.cuda_kernel.txt', k.dumps.cuda]] as const) {
      expect(checkGolden(text, `${dir}${name}`, update).diff).toBe('');
    }
  });
});
