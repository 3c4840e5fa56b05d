// The model-shaped and axis-0 sweep families compute what the PyTorch modules they are timed
// against compute: tools/bench/sweep_pytorch_model.py's modules, run on the CPU in float32 by
// tools/torch-values/sweep_model_values.py, wrote their inputs and outputs to
// test-fixtures/torch-values/sweep-model.json; each tsfuser definition runs on the reference
// backend on the same values (each input laid out in the definition's view of the same memory:
// group_norm's [N, 64, S] is [N, 32, 2, S] here) and must give the same outputs. The forward
// attention modules draw their own dropout mask, so only their attn (and nanoGPT's broadcast
// causal mask) outputs are in the fixture.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { sweepDefinition, sweepInputs } from '../src/bench/sweep-definitions.js';
import { parseFamilies } from '../src/bench/sweep-points.js';
import type { ExecuteInput } from '../src/execute/backend.js';

interface TorchCase {
  family: string;
  rows: number;
  hidden: number;
  inputs: { sizes: number[]; bool: boolean; values: number[] }[];
  outputs: { index: number; sizes: number[]; values: number[] }[];
}

const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/sweep-model.json', import.meta.url)), 'utf8')) as { cases: TorchCase[] };

describe('sweep families against the PyTorch modules they are timed against (float32, reference backend)', () => {
  it('the fixture covers every model-shaped and axis-0 family', () => {
    expect(fixture.cases.map((c) => c.family)).toEqual(['group_norm_bwd', 'rope', 'rope_bwd', 'cat', 'nanogpt_attn', 'nanogpt_attn_bwd', 'huggingface_attn', 'huggingface_attn_bwd', 'col_sum', 'softmax_outer', 'softmax_bwd_outer']);
  });

  it.each(fixture.cases.map((c) => [c.family, c] as const))('%s', async (_name, c) => {
    const [family] = parseFamilies(c.family);
    if (family === undefined) throw new Error(`fixture family ${c.family} is not a sweep family`);
    const specs = sweepInputs(family, 'Float', c.rows, c.hidden);
    const tensors = specs.filter((s) => s.scalar === undefined);
    expect(tensors.length, 'tensor inputs').toBe(c.inputs.length);
    let next = 0;
    const args: ExecuteInput[] = specs.map((s) => {
      if (s.scalar !== undefined) return s.scalar;
      const given = c.inputs[next++] as TorchCase['inputs'][number];
      expect(given.values.length, `input ${next - 1} numel`).toBe(s.sizes.reduce((a, b) => a * b, 1));
      expect(given.bool, `input ${next - 1} Bool`).toBe(s.dtype === 'Bool');
      const host = s.dtype === 'Bool' ? HostTensor.fromValues('Bool', s.sizes, given.values.map((v) => v !== 0)) : HostTensor.fromValues('Float', s.sizes, given.values);
      return Tensor.fromHost(host);
    });
    const outs = await sweepDefinition(family, 'Float', c.hidden).execute(args, { backend: 'reference' });
    for (const want of c.outputs) {
      const got = (outs[want.index] as Tensor).toHost().toFloat64Array();
      expect(got.length, `output ${want.index} numel`).toBe(want.values.length);
      want.values.forEach((e, i) => expect(Math.abs((got[i] as number) - e), `output ${want.index}, element ${i}: ${got[i]} vs ${e}`).toBeLessThanOrEqual(1e-5 + 1e-5 * Math.abs(e)));
    }
  });
});
