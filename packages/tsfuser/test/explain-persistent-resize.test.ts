// `tsfuser run --explain` on definitions with slice / pad / cat inside a normalization: softmax
// over a padded row (issue 20's example (a)) and rms_norm followed by RoPE's rotate-half
// (slice + neg + cat of the normalized row) are one inner_persistent segment each (before,
// `pointwise + inner_persistent` with the pad's reason on the edge), and the reference backend
// runs them.
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';

describe('tsfuser run --explain: slice / pad / cat in a normalization', () => {
  for (const file of ['softmax_over_pad.py', 'rms_norm_rope.py']) {
    it(`${file} is one inner_persistent segment`, async () => {
      const r = await runCli(['run', `../../test-fixtures/definitions/${file}`, '--explain', '--backend', 'reference']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Fusion IR with segments: 1 segment (1 kernel), 0 edges');
      expect(r.stdout).toMatch(/segment 0 \[inner_persistent\]/);
    });
  }
});
