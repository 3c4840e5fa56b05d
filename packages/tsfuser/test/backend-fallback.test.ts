// Without a GPU, 'auto' says in one line what is missing and that the CPU reference evaluator runs
// instead; `run --check` on the reference backend says it has nothing independent to compare with.
import { describe, expect, it } from 'vitest';
import { isAvailable } from '@tsfuser/device';
import { referenceFallbackNote, resolveBackend } from '../src/execute/execute.js';
import { createGpuBackend } from '../src/execute/gpu-backend.js';
import { FIXTURES, runCli } from './helpers.js';

describe('the reference fallback note', () => {
  it('names the missing piece first and drops the loader detail for a missing driver or device', () => {
    expect(referenceFallbackNote({ summary: 'no CUDA driver', reason: 'libcuda.so.1 not found: cannot open shared object file' })).toBe(
      'tsfuser: no CUDA driver: running on the CPU reference evaluator',
    );
    expect(referenceFallbackNote({ summary: 'no NVRTC', reason: 'libnvrtc.so not found' }, 'tsfuser fuse')).toBe(
      'tsfuser fuse: no NVRTC: running on the CPU reference evaluator (libnvrtc.so not found)',
    );
  });

  const device = isAvailable();
  const noDriver = device.addonPath !== undefined && device.driverVersion === undefined;
  it.runIf(noDriver)('on this machine (addon built, no libcuda) the GPU backend reports "no CUDA driver" and auto falls back with one line', () => {
    const a = createGpuBackend().availability();
    expect(a.available).toBe(false);
    if (!a.available) expect(a.summary).toBe('no CUDA driver');
    const notes: string[] = [];
    // Notes print once per process; vitest isolates this file, so this is the first fallback.
    expect(resolveBackend('auto', (m) => notes.push(m)).name).toBe('reference');
    expect(resolveBackend('auto', (m) => notes.push(m)).name).toBe('reference');
    expect(notes).toEqual(['tsfuser: no CUDA driver: running on the CPU reference evaluator']);
  });
});

describe('run --check on the reference backend', () => {
  it('says there is nothing independent to compare against instead of "passed"', async () => {
    const r = await runCli(['run', `${FIXTURES}/nvfuser_readme.py`, '--check', '--backend', 'reference']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('check: nothing independent to compare against: the outputs came from the reference evaluator itself');
    expect(r.stdout).not.toContain('check: passed');
    expect(r.stdout).not.toMatch(/check out0: OK/);
  });
});
