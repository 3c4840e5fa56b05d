// `tsfuser run` with a repro script that carries real data in its inputs line:
// torch.from_numpy(numpy.load('data/x.npy')) resolved against the script's directory (never the
// working directory), followed by views (.t(), .expand(), .as_strided()) that reach execute with
// their strides; and --inputs, which replaces the inputs line without evaluating it (a line
// tsfuser cannot evaluate no longer stops the run).

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { writeNpy } from '../src/io/npy.js';
import { runCli } from './helpers.js';

const DIR = mkdtempSync(join(tmpdir(), 'tsfuser-inputs-line-'));
mkdirSync(join(DIR, 'data'));
writeFileSync(join(DIR, 'data', 'x.npy'), writeNpy(HostTensor.fromValues('Float', [2, 3], [1, 2, 3, 4, 5, 6])));
writeFileSync(join(DIR, 'data', 'row.npy'), writeNpy(HostTensor.fromValues('Float', [1, 3], [10, 20, 30])));

/** out = T0 * 2 over a [-1, -1] Float input whose contiguity/stride_order the case gives. */
function script(name: string, layout: string, inputs: string): string {
  const file = join(DIR, name);
  writeFileSync(
    file,
    `import torch
import numpy
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], ${layout}, dtype=DataType.Float, is_cpu=False)
    S1 = fd.define_scalar(2.0, dtype=DataType.Double)
    T2 = fd.ops.mul(T0, S1)
    fd.add_output(T2)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [${inputs}]
fd.execute(inputs)
`,
  );
  return file;
}

describe('real data in the inputs line', () => {
  it('a .npy path relative to the script, read as C-order data', async () => {
    const r = await runCli(['run', script('dense.py', 'contiguity=[True, True]', "torch.from_numpy(numpy.load('data/x.npy')).cuda()"), '--backend', 'reference']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('out0: shape [2, 3] Float sum 42 first [2, 4, 6, 8, …]');
  });

  it('a transposed view reaches execute with its strides (a column-major input)', async () => {
    const r = await runCli(['run', script('transposed.py', 'contiguity=[True, True], stride_order=[0, 1]', "torch.from_numpy(numpy.load('data/x.npy')).t()"), '--backend', 'reference']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // x.t() is [[1, 4], [2, 5], [3, 6]]: the output in row-major order is that times 2.
    expect(r.stdout).toContain('out0: shape [3, 2] Float sum 42 first [2, 8, 4, 10, …]');
  });

  it('an expanded view reaches execute with a stride-0 dim', async () => {
    const r = await runCli(['run', script('expanded.py', 'contiguity=[None, True]', "torch.from_numpy(numpy.load('data/row.npy')).expand(2, 3)"), '--backend', 'reference']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('out0: shape [2, 3] Float sum 240 first [20, 40, 60, 20, …]');
  });

  it('a layout the definition does not accept is refused with the input index before running', async () => {
    const r = await runCli(['run', script('wrong-layout.py', 'contiguity=[True, True]', "torch.from_numpy(numpy.load('data/x.npy')).t()"), '--backend', 'reference']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/input 0: /);
  });
});

describe('--inputs replaces the inputs line without evaluating it', () => {
  const unreadable = "torch.nonexistent(3), torch.from_numpy(numpy.load('data/not-there.npy'))";

  it('without --inputs the line is evaluated and refused at its position', async () => {
    const r = await runCli(['run', script('unreadable.py', 'contiguity=[True, True]', unreadable), '--backend', 'reference']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unsupported input expression 'torch.nonexistent'/);
  });

  it('with --inputs the same script runs on the given file', async () => {
    const r = await runCli(['run', script('unreadable.py', 'contiguity=[True, True]', unreadable), '--backend', 'reference', '--inputs', join(DIR, 'data', 'x.npy')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('first [2, 4, 6, 8, …]');
    expect(r.stdout).toContain('from --inputs');
  });
});
