import { describe, it } from 'vitest';
import { add, Fusion, makeTensor, mul } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { compileFusion } from '../src/index.js';

describe('smoke', () => {
  it('compiles', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1, 1, -1] });
    const t1 = makeTensor(fusion, { shape: [-1, -1, -1] });
    fusion.addInput(t0);
    fusion.addInput(t1);
    fusion.addOutput(mul(add(t0, t1), 3));
    for (const sizes of [[[64, 1, 8192], [64, 512, 8192]], [[3, 1, 5], [3, 7, 5]]]) {
      const k = compileFusion(fusion, makeRuntimeInfo(fusion, sizes.map((s) => ({ sizes: s }))));
      console.log(k.dumps.schedulerParams, k.dumps.kernelIr, k.dumps.cuda, k.dumps.launchParams);
    }
  });
});
