// Fusions shared by the scheduler tests.
import { add, Fusion, makeTensor, mul, type TensorView } from '@tsfuser/fusion-ir';

/** (t0 + t1) * 3 with t0 [64, 1, 8192] broadcast against t1 [64, 512, 8192]. */
export function broadcastAddMul(shape0: number[] = [64, 1, 8192], shape1: number[] = [64, 512, 8192]): { fusion: Fusion; out: TensorView } {
  const fusion = new Fusion();
  const t0 = makeTensor(fusion, { shape: shape0.map((s) => (s === 1 ? 1 : -1)) });
  const t1 = makeTensor(fusion, { shape: shape1.map((s) => (s === 1 ? 1 : -1)) });
  fusion.addInput(t0);
  fusion.addInput(t1);
  const out = mul(add(t0, t1), 3);
  fusion.addOutput(out);
  return { fusion, out };
}

/** a + b on symbolic tensors of the given rank and dtype. */
export function addFusion(rank: number, dtype: 'Float' | 'Half' | 'Double' = 'Float'): Fusion {
  const fusion = new Fusion();
  const a = makeTensor(fusion, { shape: new Array<number>(rank).fill(-1), dtype });
  const b = makeTensor(fusion, { shape: new Array<number>(rank).fill(-1), dtype });
  fusion.addInput(a);
  fusion.addInput(b);
  fusion.addOutput(add(a, b));
  return fusion;
}
