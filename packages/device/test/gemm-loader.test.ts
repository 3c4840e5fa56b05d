// The addon's libcublasLt search, through the real addon in a process of its own (vitest runs
// each file in its own worker, and the addon reads the environment once, on first use):
// TSFUSER_CUBLASLT_PATH is tried first, and a library that is not cuBLASLt is reported as such
// among the candidates, not loaded.

import { describe, expect, it } from 'vitest';
import { loadAddon } from '../src/native/addon.js';

describe('libcublasLt search', () => {
  it('tries TSFUSER_CUBLASLT_PATH first and refuses a library without cuBLASLt symbols', () => {
    process.env.TSFUSER_CUBLASLT_PATH = '/lib/x86_64-linux-gnu/libm.so.6';
    const load = loadAddon();
    expect(load.ok, load.ok ? '' : load.reason).toBe(true);
    if (!load.ok) return;
    const probe = load.addon.cublasLtProbe();
    if (probe.loaded) {
      // A machine with cuBLASLt found it after refusing libm.
      expect(probe.path).toMatch(/libcublasLt\.so/);
      return;
    }
    const lines = probe.reason.split('\n');
    expect(lines[1]).toBe('  /lib/x86_64-linux-gnu/libm.so.6: missing cuBLASLt symbols (not a libcublasLt of CUDA 12 or later)');
    expect(lines[2]).toMatch(/^ {2}libcublasLt\.so\.13: /);
  });
});
