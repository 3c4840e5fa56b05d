// Type promotion table. Expected values are written by hand from PyTorch's documented rules
// (https://pytorch.org/docs/stable/tensor_attributes.html#type-promotion-doc), not computed by the
// code under test. T = dimensioned tensor, Z = zero-dim tensor, S = scalar (Python number).
import { describe, expect, it } from 'vitest';
import { Fusion, add, makeTensor, resultType, type DataType, type PromotionOperand } from '../src/index.js';

const T = (dtype: DataType): PromotionOperand => ({ dtype, isTensor: true });
const Z = (dtype: DataType): PromotionOperand => ({ dtype, isTensor: true, isZeroDim: true });
const S = (dtype: DataType): PromotionOperand => ({ dtype, isTensor: false });

const table: [string, PromotionOperand[], DataType][] = [
  // tensor × tensor: same category, wider wins
  ['Bool T × Bool T', [T('Bool'), T('Bool')], 'Bool'],
  ['Int32 T × Int T', [T('Int32'), T('Int')], 'Int'],
  ['Int T × Int32 T', [T('Int'), T('Int32')], 'Int'],
  ['Half T × Half T', [T('Half'), T('Half')], 'Half'],
  ['Half T × BFloat16 T', [T('Half'), T('BFloat16')], 'Float'],
  ['BFloat16 T × Half T', [T('BFloat16'), T('Half')], 'Float'],
  ['Half T × Float T', [T('Half'), T('Float')], 'Float'],
  ['BFloat16 T × Double T', [T('BFloat16'), T('Double')], 'Double'],
  ['Float T × Double T', [T('Float'), T('Double')], 'Double'],
  // tensor × tensor: higher category wins whatever the width
  ['Bool T × Int32 T', [T('Bool'), T('Int32')], 'Int32'],
  ['Bool T × Half T', [T('Bool'), T('Half')], 'Half'],
  ['Int T × Half T', [T('Int'), T('Half')], 'Half'],
  ['Int32 T × BFloat16 T', [T('Int32'), T('BFloat16')], 'BFloat16'],
  ['Int T × Float T', [T('Int'), T('Float')], 'Float'],
  ['Double T × Int32 T', [T('Double'), T('Int32')], 'Double'],
  ['Index T × Int32 T', [T('Index'), T('Int32')], 'Int'],
  // tensor × scalar: same-category scalars never widen the tensor
  ['Int32 T × int S', [T('Int32'), S('Int')], 'Int32'],
  ['Half T × double S', [T('Half'), S('Double')], 'Half'],
  ['BFloat16 T × double S', [T('BFloat16'), S('Double')], 'BFloat16'],
  ['Float T × double S', [T('Float'), S('Double')], 'Float'],
  ['Half T × int S', [T('Half'), S('Int')], 'Half'],
  ['Int32 T × bool S', [T('Int32'), S('Bool')], 'Int32'],
  ['Bool T × bool S', [T('Bool'), S('Bool')], 'Bool'],
  ['Half T × Float S', [T('Half'), S('Float')], 'Half'],
  // tensor × scalar: higher-category scalar gives that category's default dtype
  ['Bool T × int S', [T('Bool'), S('Int')], 'Int'],
  ['Bool T × Int32 S', [T('Bool'), S('Int32')], 'Int'],
  ['Int T × float S', [T('Int'), S('Double')], 'Float'],
  ['Int32 T × double S', [T('Int32'), S('Double')], 'Float'],
  ['Bool T × double S', [T('Bool'), S('Double')], 'Float'],
  ['int S × Int32 T (order)', [S('Int'), T('Int32')], 'Int32'],
  // scalar × scalar: the result is a scalar of the promoted scalar dtype (Python arithmetic)
  ['int S × int S', [S('Int'), S('Int')], 'Int'],
  ['int S × double S', [S('Int'), S('Double')], 'Double'],
  ['bool S × int S', [S('Bool'), S('Int')], 'Int'],
  ['bool S × bool S', [S('Bool'), S('Bool')], 'Bool'],
  ['Index S × Index S', [S('Index'), S('Index')], 'Index'],
  ['Index S × Int S', [S('Index'), S('Int')], 'Int'],
  // zero-dim tensors: their own tier between dimensioned tensors and scalars
  ['Int32 T × Int Z', [T('Int32'), Z('Int')], 'Int32'],
  ['Half T × Double Z', [T('Half'), Z('Double')], 'Half'],
  ['Int32 T × Float Z', [T('Int32'), Z('Float')], 'Float'],
  ['Int T × Half Z', [T('Int'), Z('Half')], 'Half'],
  ['Bool T × Int32 Z', [T('Bool'), Z('Int32')], 'Int32'],
  ['Int Z × Int32 Z', [Z('Int'), Z('Int32')], 'Int'],
  ['Int32 Z × double S', [Z('Int32'), S('Double')], 'Float'],
  ['Half Z × double S', [Z('Half'), S('Double')], 'Half'],
  ['Int32 T × Int Z × double S', [T('Int32'), Z('Int'), S('Double')], 'Float'],
  ['Int32 T × Double Z × double S', [T('Int32'), Z('Double'), S('Double')], 'Double'],
  ['Float T × Double Z × int S', [T('Float'), Z('Double'), S('Int')], 'Float'],
  ['Bool T × Bool Z × int S', [T('Bool'), Z('Bool'), S('Int')], 'Int'],
];

describe('resultType follows PyTorch type promotion', () => {
  it('has at least 40 cases', () => {
    expect(table.length).toBeGreaterThanOrEqual(40);
  });
  it.each(table)('%s', (_name, operands, expected) => {
    expect(resultType(operands)).toBe(expected);
  });
});

describe('ops apply promotion to real operands', () => {
  it('zero-dim tensors are recognised from the tensor rank', () => {
    const fusion = new Fusion();
    const t = makeTensor(fusion, { shape: [-1], dtype: 'Int32' });
    const z = makeTensor(fusion, { shape: [], dtype: 'Int' });
    expect(add(t, z).dtype).toBe('Int32');
    const zf = makeTensor(fusion, { shape: [], dtype: 'Double' });
    expect(add(t, zf).dtype).toBe('Double');
    const h = makeTensor(fusion, { shape: [-1], dtype: 'Half' });
    expect(add(h, zf).dtype).toBe('Half');
    expect(add(h, fusion.constant(0.5, 'Double')).dtype).toBe('Half');
    expect(add(fusion.constant(1, 'Int'), fusion.constant(0.5, 'Double')).dtype).toBe('Double');
  });
});
