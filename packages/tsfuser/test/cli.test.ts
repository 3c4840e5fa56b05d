import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { DUMP_OPTIONS } from '../src/cli/dump-options.js';
import { readNpy, writeNpy } from '../src/io/npy.js';
import { FIXTURES, allFixtures, runCli } from './helpers.js';

const fixture = (name: string): string => join(FIXTURES, name);

describe('tsfuser run', () => {
  it.each(allFixtures())('runs %s with --check on the reference backend', async (file) => {
    const r = await runCli(['run', fixture(file), '--check', '--backend', 'reference']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/out0: shape \[[\d, ]*\] (Float|Half|BFloat16|Double)/);
    expect(r.stdout).toContain('check: nothing independent to compare against');
  });

  it('computes the README example: (1 + 1) * 3 summed over 8 = 48', async () => {
    const r = await runCli(['run', fixture('nvfuser_readme.py')]);
    expect(r.stdout).toContain('out0: shape [2, 4] Float sum 384 first [48, 48, 48, 48, …]');
  });

  it('generates inputs from --shape and --seed deterministically', async () => {
    const a = await runCli(['run', fixture('softmax.py'), '--shape', '3,5,7', '--seed', '11']);
    const b = await runCli(['run', fixture('softmax.py'), '--shape', '3,5,7', '--seed', '11']);
    const c = await runCli(['run', fixture('softmax.py'), '--shape', '3,5,7', '--seed', '12']);
    expect(a.stdout).toContain('out0: shape [3, 5, 7] Half');
    expect(a.stdout).toBe(b.stdout);
    expect(c.stdout).not.toBe(a.stdout);
  });

  it('prints a complex output\'s summary as Python prints complex numbers (it threw on complex elements)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-cli-'));
    const file = join(dir, 'complex_square.py');
    writeFileSync(
      file,
      [
        'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :',
        '    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.ComplexFloat, is_cpu=False)',
        '    T1 = fd.ops.mul(T0, T0)',
        '    fd.add_output(T1)',
        '',
        'with FusionDefinition() as fd:',
        '    nvfuser_fusion_id0(fd)',
        '',
        'inputs = [torch.tensor([1+2j, 3-4j], dtype=torch.complex64, device="cuda:0")]',
        'fd.execute(inputs)',
        '',
      ].join('\n'),
    );
    const r = await runCli(['run', file, '--backend', 'reference']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // (1+2j)² = -3+4j, (3-4j)² = -7-24j
    expect(r.stdout).toContain('out0: shape [2] ComplexFloat sum -10-20j first [-3+4j, -7-24j]');
  });

  it('reads --inputs .npy files and writes --save-outputs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-cli-'));
    const x = HostTensor.fromValues('Float', [2, 1, 3], [1, 2, 3, 4, 5, 6]);
    const y = HostTensor.fromValues('Float', [2, 2, 3], new Array<number>(12).fill(1));
    writeFileSync(join(dir, 'x.npy'), writeNpy(x));
    writeFileSync(join(dir, 'y.npy'), writeNpy(y));
    const r = await runCli(['run', fixture('nvfuser_readme.py'), '--inputs', `${join(dir, 'x.npy')},${join(dir, 'y.npy')}`, '--save-outputs', join(dir, 'out')]);
    expect(r.code).toBe(0);
    const out = readNpy(new Uint8Array(readFileSync(join(dir, 'out', 'out0.npy'))));
    // row i: sum_k (x[i,k] + 1) * 3
    expect(out.sizes).toEqual([2, 2]);
    expect(out.toNumbers()).toEqual([27, 27, 54, 54]);
  });

  it('prints dumps from --dump and TSFUSER_DUMP', async () => {
    const r = await runCli(['run', fixture('issue785_pow_sum.py'), '--dump', 'python_definition,cuda_kernel', '--python'], { TSFUSER_DUMP: 'fusion_ir_presched' });
    expect(r.stdout).toContain('=== python_definition ===\nfunction nvfuserFusionId');
    expect(r.stdout).toContain('def nvfuser_fusion_id');
    expect(r.stdout).toContain('= reduction( T0_g[ iS0{i0}, iS1{i1}, iS2{i2} ], op = add, initial value = float(0), allreduce = false )');
    // Compile-side dumps need no GPU: the reference backend prints the kernel compiled for sm_90.
    expect(r.stdout).toContain('__global__ void __launch_bounds__(512) nvfuser_reduction_f0_c1_r0_g0(');
  });

  it('rejects an unknown dump option, listing the valid ones', async () => {
    const r = await runCli(['run', fixture('softmax.py'), '--dump', 'fusion_ir,kernel_soup']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown dump option 'kernel_soup' in --dump; valid options: bank_conflict, buffer_reuse_verbose, ca_map, communication, cubin, cuda_full,");
  });

  it('reports a malformed definition as file:line:col', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-cli-'));
    const file = join(dir, 'bad.py');
    writeFileSync(file, 'def f(fd : FusionDefinition) -> None :\n    T0 = fd.define_tensor(3)\n    T1 = fd.ops.frob(T0)\n');
    const r = await runCli(['run', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${file}:3:10: unknown op 'fd.ops.frob': tsfuser does not support it\n`);
  });

  it('reports wrong --inputs with the input index', async () => {
    const r = await runCli(['run', fixture('issue785_gelu_bias_grad.py'), '--inputs', '1,2,3']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/tsfuser: input 3: missing \(S3: Double scalar\): the definition has 7 inputs/);
  });

  it('says the GPU backend is unavailable instead of crashing', async () => {
    const r = await runCli(['run', fixture('softmax.py'), '--backend', 'gpu']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/backend 'gpu' is unavailable/);
  });
});

describe('tsfuser ir print and --help', () => {
  it('prints a TorchScript graph and reports malformed files as file:line:col', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-ir-'));
    const good = join(dir, 'g.ir');
    writeFileSync(good, 'graph(%x : Float(2, 3)):\n  %y : Float(2, 3) = aten::relu(%x)\n  return (%y)\n');
    const r = await runCli(['ir', 'print', good]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('aten::relu(%x)');
    const bad = join(dir, 'b.ir');
    writeFileSync(bad, 'graph(%x : Float(2, 3)):\n  %y = aten::relu(%x\n  return (%y)\n');
    const e = await runCli(['ir', 'print', bad]);
    expect(e.code).toBe(1);
    expect(e.stderr).toMatch(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: `));
  });

  it('lists every flag and dump option', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const o of DUMP_OPTIONS) expect(r.stdout).toContain(`  ${o.name}`);
    for (const flag of ['--backend', '--check', '--dump', '--seed', '--shape', '--inputs', '--save-outputs', '--python', '--device']) expect(r.stdout).toContain(flag);
  });
});
