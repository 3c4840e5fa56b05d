import { describe, expect, it } from 'vitest';
import { printFusion } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, PointwiseScheduler, heuristicParamsToString } from '../src/index.js';
import { broadcastAddMul } from './fixtures.js';

describe('smoke', () => {
  it('schedules', () => {
    const { fusion } = broadcastAddMul();
    const ri = makeRuntimeInfo(fusion, [{ sizes: [64, 1, 8192] }, { sizes: [64, 512, 8192] }]);
    const s = new PointwiseScheduler();
    expect(s.canSchedule(fusion, ri)).toEqual({ ok: true });
    const p = s.computeHeuristics(fusion, ri);
    console.log(heuristicParamsToString(p));
    const c = fusion.clone();
    const r = s.schedule(c.fusion, p);
    console.log(printFusion(r.fusion));
  });
});
