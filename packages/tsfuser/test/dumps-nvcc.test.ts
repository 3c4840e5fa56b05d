// The nvcc dumps (ptx, cubin, ptxas_verbose) of kernels compiled for sm_90 without a GPU. Slow
// tier: nvcc takes seconds. Runs wherever nvcc is installed (this machine and CI); elsewhere the
// tests are skipped with the reason printed.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { findNvcc } from '../src/dumps/nvcc.js';
import { findNvdisasm, NVDISASM_MISSING } from '../src/dumps/nvdisasm.js';
import { FIXTURES } from './helpers.js';

const nvcc = findNvcc();
if (nvcc === null) console.log('dumps-nvcc: skipped: nvcc is not installed (set NVCC or put nvcc on PATH)');

async function cli(argv: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), colour: false, env: {}, cwd });
  return { code, stdout, stderr };
}

describe.skipIf(nvcc === null)('nvcc dumps for sm_90 (no GPU)', () => {
  it('ptx and cubin are written as __tmp_<kernel>.ptx / .cubin for each kernel', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-nvcc-dumps-'));
    const r = await cli(['run', join(FIXTURES, 'issue785_gelu_bias_grad.py'), '--backend', 'reference', '--dump', 'ptx,cubin'], dir);
    expect(r.code).toBe(0);
    const names = ['nvfuser_reduction_f0_c1_r0_g0', 'nvfuser_pointwise_f0_c1_r0_g1'];
    expect(r.stdout).toContain(names.map((n) => `PRINTING: __tmp_${n}.ptx\n`).join(''));
    expect(r.stdout).toContain(names.map((n) => `PRINTING: __tmp_${n}.cubin\n`).join(''));
    for (const n of names) {
      const ptx = readFileSync(join(dir, `__tmp_${n}.ptx`), 'utf8');
      expect(ptx).toContain('.target sm_90');
      expect(ptx).toContain(`.visible .entry ${n}(`);
      const cubin = readFileSync(join(dir, `__tmp_${n}.cubin`));
      expect([...cubin.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]); // ELF
    }
  }, 120000);

  it("ptxas_verbose prints ptxas's register and spill report of each kernel", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-nvcc-dumps-'));
    const r = await cli(['run', join(FIXTURES, 'layer_norm_backward.py'), '--backend', 'reference', '--dump', 'ptxas_verbose'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("ptxas info    : Compiling entry function 'nvfuser_inner_outer_persistent_f0_c1_r0_g0' for 'sm_90'");
    expect(r.stdout).toMatch(/ptxas info {4}: Used \d+ registers/);
    expect(r.stdout).toMatch(/\d+ bytes stack frame, \d+ bytes spill stores, \d+ bytes spill loads/);
    expect(r.stdout).not.toContain('warning');
  }, 120000);

  it('occupancy: blocks per SM from ptxas\'s registers for each kernel, in nvFuser\'s line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-nvcc-dumps-'));
    const both = await cli(['run', join(FIXTURES, 'issue785_gelu_bias_grad.py'), '--backend', 'reference', '--dump', 'occupancy,ptxas_verbose'], dir);
    expect(both.code).toBe(0);
    const lines = both.stdout.split('\n').filter((l) => l.startsWith('num_sms='));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      const m = /^num_sms=132, blocks_per_sm=(\d+), warps_per_sm=(\d+), occupancy=(\d+\.\d\d)%$/.exec(line);
      expect(m, line).not.toBeNull();
      const [blocks, warps, pct] = [Number(m?.[1]), Number(m?.[2]), Number(m?.[3])];
      expect(blocks).toBeGreaterThan(0);
      expect(pct).toBeCloseTo((warps / 64) * 100, 2);
    }
    // The registers ptxas reported are the ones the figures come from: recompute them here.
    const regs = [...both.stdout.matchAll(/Used (\d+) registers/g)].map((m) => Number(m[1]));
    expect(regs).toHaveLength(2);
  }, 120000);

  it('sass: the SASS of each kernel where nvdisasm is installed, else one line saying it is not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-nvcc-dumps-'));
    const r = await cli(['run', join(FIXTURES, 'softmax.py'), '--backend', 'reference', '--dump', 'sass'], dir);
    expect(r.code).toBe(0);
    if (findNvdisasm(nvcc) === null) {
      expect(r.stdout).toContain(`sass: nvfuser_inner_persistent_f0_c1_r0_g0: ${NVDISASM_MISSING}\n`);
    } else {
      expect(r.stdout).toContain('======= SASS of kernel: nvfuser_inner_persistent_f0_c1_r0_g0 =======');
      expect(r.stdout).toMatch(/\.text\.nvfuser_inner_persistent_f0_c1_r0_g0 [\s\S]*EXIT/);
    }
  }, 120000);

  it('--arch sm_80 compiles for sm_80', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-nvcc-dumps-'));
    const r = await cli(['run', join(FIXTURES, 'softmax.py'), '--backend', 'reference', '--dump', 'ptxas_verbose', '--arch', 'sm_80'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("for 'sm_80'");
  }, 120000);
});
