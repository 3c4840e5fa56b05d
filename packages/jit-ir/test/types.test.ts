import { describe, expect, it } from 'vitest';
import {
  DynamicTensorType,
  IntType,
  NoneType,
  NumberType,
  ParseError,
  SCALAR_TYPES,
  completeTensorType,
  isCompleteTensorType,
  isSubtypeOf,
  listType,
  optionalType,
  parseType,
  printType,
  tensorType,
  typesEqual,
} from '../src/index.js';

const roundTrip = (text: string): string => printType(parseType(text));

describe('type printer and parser', () => {
  it.each([
    'Float(8, 256, 56, 56, strides=[802816, 3136, 56, 1], requires_grad=0, device=cuda:0)',
    'Float(*, *, requires_grad=0, device=cuda:0)',
    'Float(requires_grad=0, device=cuda:0)',
    'Half(2, 3, strides=[3, 1], requires_grad=1, device=cuda:1)',
    'Long(requires_grad=0, device=cpu)',
    'Tensor',
    'Tensor(requires_grad=0, device=cuda:0)',
    'FloatTensor',
    'FloatTensor(device=cuda:0)',
    'Float()',
    'Float(3, 4)',
    'int',
    'float',
    'bool',
    'str',
    'complex',
    'Device',
    'NoneType',
    'int[]',
    'float[]',
    'Tensor[]',
    'Tensor?',
    'int?',
    'int[]?',
    '(Tensor, Tensor)',
    '(int, (float, Tensor?))',
    '()',
    'Scalar',
    'number',
    'Layout',
    'ScalarType',
    'MemoryFormat',
    'Generator?',
    'Any',
  ])('%s round-trips', (text) => {
    expect(roundTrip(text)).toBe(text);
  });

  it('prints every scalar type', () => {
    for (const st of SCALAR_TYPES) {
      const text = `${st}(2, strides=[1], requires_grad=0, device=cuda:0)`;
      expect(roundTrip(text)).toBe(text);
    }
  });

  it('accepts annotation spellings and normalizes them', () => {
    expect(roundTrip('List[int]')).toBe('int[]');
    expect(roundTrip('Optional[Tensor]')).toBe('Tensor?');
    expect(roundTrip('Tuple[int, float]')).toBe('(int, float)');
    expect(roundTrip('None')).toBe('NoneType');
  });

  it('parses the structure of complete tensor types', () => {
    const t = parseType('Float(8, 4, strides=[4, 1], requires_grad=0, device=cuda:0)');
    expect(t).toEqual(tensorType({ scalarType: 'Float', sizes: [8, 4], strides: [4, 1], requiresGrad: false, device: { type: 'cuda', index: 0 } }));
    expect(isCompleteTensorType(t)).toBe(true);
    expect(isCompleteTensorType(parseType('Float(*, 4, requires_grad=0, device=cuda:0)'))).toBe(false);
  });

  it('builds complete types with contiguous strides', () => {
    expect(printType(completeTensorType('Float', [8, 256, 56, 56]))).toBe('Float(8, 256, 56, 56, strides=[802816, 3136, 56, 1], requires_grad=0, device=cuda:0)');
  });

  it('rejects malformed types with ParseError', () => {
    for (const bad of ['Flaot(2)', 'Float(2, strides=[1, 1])', 'Float(2', 'int[', 'Float(2, requires_grad=2)', 'Float(device=gpu:0)', 'List[int, int]', 'Float']) {
      expect(() => parseType(bad), bad).toThrow(ParseError);
    }
  });

  it('implements the subtype relation used by schema matching', () => {
    const f = completeTensorType('Float', [2]);
    expect(isSubtypeOf(f, DynamicTensorType)).toBe(true);
    expect(isSubtypeOf(IntType, NumberType)).toBe(true);
    expect(isSubtypeOf(parseType('float'), parseType('Scalar'))).toBe(true);
    expect(isSubtypeOf(parseType('bool'), parseType('Scalar'))).toBe(false);
    expect(isSubtypeOf(NoneType, optionalType(DynamicTensorType))).toBe(true);
    expect(isSubtypeOf(f, optionalType(DynamicTensorType))).toBe(true);
    expect(isSubtypeOf(IntType, optionalType(DynamicTensorType))).toBe(false);
    expect(isSubtypeOf(listType(IntType), parseType('int[1]?'))).toBe(true);
    expect(isSubtypeOf(IntType, parseType('ScalarType'))).toBe(true);
    expect(isSubtypeOf(parseType('(Tensor, int)'), parseType('(Tensor, Scalar)'))).toBe(true);
    expect(typesEqual(parseType('int[]'), listType(IntType))).toBe(true);
  });
});
