// Values in nvFuser's text: C++ %g numbers, typed constants, symbolic and named scalars,
// IterDomains (iter type, parallel type, rf, expanded extents), TensorViews (memory type,
// ca_pos / produce_pos), Inputs/Outputs lines and contiguity.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as ops from '../src/index.js';
import {
  Fusion,
  PARALLEL_TYPES,
  castFunctionName,
  constantToString,
  formatCppFloat,
  iterDomainToString,
  makeTensor,
  printFusion,
  printInputsOutputs,
  scalarToInlineString,
  scalarToString,
  tensorViewToString,
  valToString,
} from '../src/index.js';

describe('formatCppFloat (std::setprecision(p) << x)', () => {
  it('matches what C++ streams print', () => {
    expect(formatCppFloat(3, 17)).toBe('3');
    expect(formatCppFloat(0.5, 17)).toBe('0.5');
    expect(formatCppFloat(1e-5, 17)).toBe('1.0000000000000001e-05');
    expect(formatCppFloat(Math.fround(1e-5), 17)).toBe('9.9999997473787516e-06');
    expect(formatCppFloat(0.1, 17)).toBe('0.10000000000000001');
    expect(formatCppFloat(0.1, 9)).toBe('0.1');
    expect(formatCppFloat(Math.fround(0.1), 9)).toBe('0.100000001');
    expect(formatCppFloat(1e20, 17)).toBe('1e+20');
    expect(formatCppFloat(123456789, 9)).toBe('123456789');
    expect(formatCppFloat(1234567890, 9)).toBe('1.23456789e+09');
    expect(formatCppFloat(0.0001, 17)).toBe('0.0001');
    expect(formatCppFloat(-2.5e-300, 17)).toBe('-2.5e-300');
    expect(formatCppFloat(-Infinity, 9)).toBe('-inf');
    expect(formatCppFloat(Infinity, 17)).toBe('inf');
    expect(formatCppFloat(NaN, 17)).toBe('nan');
    expect(formatCppFloat(-0, 17)).toBe('-0');
  });

  it('round-trips every double at 17 digits and has %g shape', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const text = formatCppFloat(x, 17);
        expect(Number(text)).toBe(x);
        expect(text).toMatch(/^-?(\d+(\.\d*[1-9])?|\d(\.\d*[1-9])?e[+-]\d{2,3})$/);
      }),
    );
  });
});

describe('scalars', () => {
  it('prints constants by dtype: floating typed, integers bare, bools as words', () => {
    expect(constantToString('Double', 3)).toBe('double(3)');
    expect(constantToString('Float', 0)).toBe('float(0)');
    expect(constantToString('Half', 0.1)).toBe('__half(0.1)');
    expect(constantToString('BFloat16', 1.5)).toBe('__bfloat(1.5)');
    expect(constantToString('Int', 2)).toBe('2');
    expect(constantToString('Index', 128)).toBe('128');
    expect(constantToString('Int', -9223372036854775808n)).toBe('-9223372036854775808');
    expect(constantToString('Bool', true)).toBe('true');
  });

  it('names symbolic scalars by dtype prefix and named scalars by name', () => {
    const fusion = new Fusion();
    expect(scalarToString(fusion.newSymbolicScalar('Index'))).toBe('i0');
    expect(scalarToString(fusion.newSymbolicScalar('Double'))).toBe('d1');
    expect(scalarToString(fusion.newSymbolicScalar('Float'))).toBe('f2');
    expect(scalarToString(fusion.newSymbolicScalar('Bool'))).toBe('b3');
    expect(scalarToString(fusion.namedScalar('blockDim.x'))).toBe('blockDim.x');
  });

  it('inlines scalar definitions in parentheses, recursively', () => {
    const fusion = new Fusion();
    const [a, b, c] = [0, 1, 2].map(() => fusion.newSymbolicScalar('Index')) as [ops.Scalar, ops.Scalar, ops.Scalar];
    const inner = ops.mul(b, c);
    const e = ops.ceilDiv(ops.mul(a, inner), fusion.index(4));
    expect(scalarToString(e)).toBe(`i${e.name}`);
    expect(scalarToInlineString(e)).toBe('( ceilDiv(( i0 * ( i1 * i2 ) ), 4) )');
    expect(scalarToInlineString(ops.cast(a, 'Double'))).toBe('( (double)(i0) )');
  });

  it('spells casts as nvFuser does', () => {
    expect(castFunctionName('Int', 'Double')).toBe('(double)');
    expect(castFunctionName('Double', 'Float')).toBe('(float)');
    expect(castFunctionName('Float', 'Int32')).toBe('(int32_t)');
    expect(castFunctionName('Int', 'Index')).toBe('(nvfuser_index_t)');
    expect(castFunctionName('Float', 'Half')).toBe('__float2half');
    expect(castFunctionName('Int32', 'BFloat16')).toBe('__int2bfloat');
    expect(castFunctionName('Half', 'Float')).toBe('__half2float');
    expect(castFunctionName('BFloat16', 'Int')).toBe('__bfloat2int');
    expect(castFunctionName('Half', 'BFloat16')).toBe('__half2bfloat');
  });
});

describe('IterDomains and TensorViews', () => {
  it('prints iter type, parallel type, name, extent and rf', () => {
    const fusion = new Fusion();
    const n = fusion.newSymbolicScalar('Index');
    const short: Record<string, string> = {
      Serial: 'S', BIDx: 'blockIdx.x', BIDy: 'blockIdx.y', BIDz: 'blockIdx.z', TIDx: 'threadIdx.x',
      TIDy: 'threadIdx.y', TIDz: 'threadIdx.z', Vectorize: 'V', Unroll: 'UR', Unswitch: 'US',
    };
    for (const p of PARALLEL_TYPES) {
      const id = fusion.newIterDomain(n, 'Iteration').parallelize(p);
      expect(iterDomainToString(id)).toBe(`i${short[p] ?? '?'}${id.name}{i0}`);
    }
    const r = fusion.newIterDomain(n, 'Reduction', { isRFactorProduct: true });
    expect(valToString(r)).toBe(`rS${r.name}{i0}rf`);
    const b = fusion.newIterDomain(fusion.index(1), 'Broadcast', { expandedExtent: n });
    expect(iterDomainToString(b)).toBe(`bS${b.name}{1 ex i0}`);
    expect(iterDomainToString(fusion.newIterDomain(n, 'Symbolic'))).toMatch(/^\?S\d+\{i0\}$/);
  });

  it('prints the loop domain, memory type and inlining positions of a tensor', () => {
    const fusion = new Fusion();
    const t0 = makeTensor(fusion, { shape: [-1, 1, 7] });
    expect(tensorViewToString(t0)).toBe('T0_l[ iS0{i0}, bS1{1}, iS2{7} ]');
    fusion.addInput(t0);
    expect(tensorViewToString(t0)).toBe('T0_g[ iS0{i0}, bS1{1}, iS2{7} ]');
    t0.setMemoryType('Shared');
    t0.computeAtPosition = 1;
    expect(tensorViewToString(t0)).toBe('T0_s[ iS0{i0}, bS1{1}, iS2{7} ] ca_pos( 1 )');
    t0.maxProducerPosition = 3;
    expect(tensorViewToString(t0)).toBe('T0_s[ iS0{i0}, bS1{1}, iS2{7} ] ca_pos( 1 ) produce_pos( 3 )');
    const scalarTensor = makeTensor(fusion, { shape: [] });
    expect(tensorViewToString(scalarTensor)).toBe('T1_l[ 0 ]');
  });
});

describe('Inputs / Outputs', () => {
  it('lists tensors and scalars with nvFuser dtype names', () => {
    const fusion = new Fusion();
    const dtypes = ['Float', 'Double', 'Half', 'BFloat16', 'Bool', 'Int', 'Int32'] as const;
    const tensors = dtypes.map((dtype) => makeTensor(fusion, { shape: [-1], dtype }));
    for (const t of tensors) fusion.addInput(t);
    const s = fusion.newSymbolicScalar('Double');
    fusion.addInput(s);
    fusion.addOutput(ops.add(tensors[0] as ops.TensorView, s));
    const io = printInputsOutputs(fusion.inputs, fusion.outputs).split('\n');
    expect(io.slice(1, 8).map((l) => l.split(', ').at(-1))).toEqual(['float', 'double', '__half', '__bfloat', 'bool', 'int64_t', 'int']);
    expect(io[8]).toBe(`  d${s.name}, double`);
    expect(io[9]).toBe('Outputs:');
    expect(printFusion(fusion)).toContain('\n\n%kernel_math {\n');
  });

  it('prints an empty fusion as empty blocks', () => {
    expect(printFusion(new Fusion())).toBe('Inputs:\nOutputs:\n\n%kernel_math {\n}\n');
  });
});
