// `tsfuser run --explain` on layer_norm backward: one inner_outer_persistent segment (before
// the inner-outer persistent scheduler it was several kernels: inner persistent + reductions),
// and the reference backend runs the definition.
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';

describe('tsfuser run --explain: layer_norm backward', () => {
  it('is one inner_outer_persistent segment', async () => {
    const r = await runCli(['run', '../../test-fixtures/definitions/layer_norm_backward.py', '--explain', '--backend', 'reference']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Fusion IR with segments: 1 segment (1 kernel), 0 edges');
    expect(r.stdout).toMatch(/segment 0 \[inner_outer_persistent\]/);
  });
});
