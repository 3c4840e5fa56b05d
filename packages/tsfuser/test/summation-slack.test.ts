// gpu/summation-slack.ts: the tolerance the GPU shape-ops suite gives outputs computed through
// reductions. The H100's result for shape-ops case 21041224 (a layer-norm backward over a cat,
// 2026-11-25) differs from the float64 reference by 1.6e-5 on an element of 1.41 in a row whose
// outputs reach 685: the sum-only bound rejected it, the norm-wise bound (as the simulator tests
// use) accepts it; a change of one whole input term on that element is still rejected.
import { describe, expect, it } from 'vitest';
import { evaluate, HostTensor } from '@tsfuser/fusion-ir';
import { randomInnerOuterPersistentResizeCase } from '@tsfuser/test-support';
import { absoluteHost, reductionSlack, summationSlack } from '../gpu/summation-slack.js';

describe('reduction slack', () => {
  const c = randomInnerOuterPersistentResizeCase(21041224);
  const want = evaluate(c.fusion, c.inputs)[0] as HostTensor;
  const absolute = evaluate(c.fusion, c.inputs.map((v) => (v instanceof HostTensor ? absoluteHost(v) : v)))[0] as HostTensor;
  const terms = Math.max(...c.inputs.map((v) => (v instanceof HostTensor ? v.numel : 1)));
  const gpu = 1.4086709022521973; // measured on the H100
  const k = 1571;

  it('accepts the H100 value of case 21041224 that the sum-only bound rejected', () => {
    expect(want.getNumber(k)).toBeCloseTo(1.408686637878418, 12);
    const error = Math.abs(gpu - want.getNumber(k));
    const tol = 1e-5 * Math.max(1, Math.abs(want.getNumber(k)));
    expect(error).toBeGreaterThan(tol + (summationSlack(absolute, terms)[k] as number));
    expect(error).toBeLessThan(tol + (reductionSlack(want, absolute, terms, 'Float')[k] as number));
  });

  it('is never below the sum-only bound, and far below one input term of that element', () => {
    const slack = reductionSlack(want, absolute, terms, 'Float');
    const sumOnly = summationSlack(absolute, terms);
    for (let i = 0; i < slack.length; i += 1) expect(slack[i]).toBeGreaterThanOrEqual(sumOnly[i] as number);
    // The smallest |input| term of the fusion's first input is far larger than the slack.
    const x = c.inputs[0] as HostTensor;
    const typical = x.toNumbers().map((v) => Math.abs(v as number)).sort((a, b) => a - b)[Math.floor(x.numel / 2)] as number;
    expect(slack[k] as number).toBeLessThan(typical);
  });
});
