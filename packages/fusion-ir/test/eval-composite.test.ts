import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import type { HostTensor } from '../src/index.js';
import { close, inputLike, randomTensor, runFusion } from './eval-helpers.js';

describe('composite ops evaluate to their closed forms', () => {
  it('softmax over the last dim (Double)', () => {
    const x = randomTensor('Double', [4, 9], false);
    const [y] = runFusion((f) => f.addOutput(ops.softmax(inputLike(f, x), 1)), [x]) as [HostTensor];
    const xs = x.toNumbers();
    for (let r = 0; r < 4; r += 1) {
      const row = xs.slice(r * 9, r * 9 + 9);
      const m = Math.max(...row);
      const z = row.reduce((a, v) => a + Math.exp(v - m), 0);
      row.forEach((v, j) => expect(close(y.getNumber(r * 9 + j), Math.exp(v - m) / z, 'Double')).toBe(true));
    }
  });

  it('gelu (exact and tanh) and silu in Float', () => {
    const x = randomTensor('Float', [50]);
    const [g, gt, s] = runFusion((f) => {
      const t = inputLike(f, x);
      f.addOutput(ops.gelu(t));
      f.addOutput(ops.gelu(t, 'tanh'));
      f.addOutput(ops.silu(t));
    }, [x]) as [HostTensor, HostTensor, HostTensor];
    const k = Math.sqrt(2 / Math.PI);
    x.toNumbers().forEach((v, i) => {
      expect(close(gt.getNumber(i), 0.5 * v * (1 + Math.tanh(k * (v + 0.044715 * v ** 3))), 'Float')).toBe(true);
      expect(close(s.getNumber(i), v / (1 + Math.exp(-v)), 'Float')).toBe(true);
      // erf itself is checked against reference tables in eval-special.test.ts
      expect(close(g.getNumber(i), 0.5 * v * (1 + ops.specialFunctions.erf(v / Math.SQRT2)), 'Float')).toBe(true);
    });
  });
});
