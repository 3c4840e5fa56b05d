// Complex dtypes in Fusion IR: PyTorch's promotion (complex with real → complex of matching
// precision; a Python float scalar never widens ComplexFloat), the result dtypes of
// complex / real / imag / abs, one clear error per op PyTorch refuses on complex, the printed IR
// (dtype names, complex constants), and HostTensor's interleaved storage through views.
import { describe, expect, it } from 'vitest';
import {
  Complex, Fusion, HostTensor, abs, add, broadcast, cast, complex, cumsum, dataTypeSize, div, evaluate, exp, gt, imag, makeTensor, max, maximum, mul,
  permute, printFusion, promoteTypes, real, resultType, sum, torchDtypeName, where, type DataType, type TensorView,
} from '../src/index.js';

function tensor(f: Fusion, dtype: DataType, rank = 2): TensorView {
  const t = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(t);
  return t;
}

describe('complex data types', () => {
  it('have nvFuser and torch names and sizes of 8 and 16 bytes', () => {
    expect(dataTypeSize('ComplexFloat')).toBe(8);
    expect(dataTypeSize('ComplexDouble')).toBe(16);
    expect(torchDtypeName('ComplexFloat')).toBe('torch.complex64');
    expect(torchDtypeName('ComplexDouble')).toBe('torch.complex128');
  });

  it('promote as torch.result_type does', () => {
    // torch.promote_types
    expect(promoteTypes('ComplexFloat', 'Float')).toBe('ComplexFloat');
    expect(promoteTypes('ComplexFloat', 'Double')).toBe('ComplexDouble');
    expect(promoteTypes('ComplexFloat', 'ComplexDouble')).toBe('ComplexDouble');
    expect(promoteTypes('Int', 'ComplexFloat')).toBe('ComplexFloat');
    expect(promoteTypes('BFloat16', 'ComplexFloat')).toBe('ComplexFloat');
    // tensor with a Python scalar: torch.result_type(complex64 tensor, 2.0) is complex64 …
    expect(resultType([{ dtype: 'ComplexFloat', isTensor: true }, { dtype: 'Double', isTensor: false }])).toBe('ComplexFloat');
    // … and a complex scalar lifts a real tensor to the complex type of its precision
    expect(resultType([{ dtype: 'Float', isTensor: true }, { dtype: 'ComplexDouble', isTensor: false }])).toBe('ComplexFloat');
    expect(resultType([{ dtype: 'Double', isTensor: true }, { dtype: 'ComplexDouble', isTensor: false }])).toBe('ComplexDouble');
    expect(resultType([{ dtype: 'Int32', isTensor: true }, { dtype: 'ComplexDouble', isTensor: false }])).toBe('ComplexFloat');
  });

  it('give complex / real / imag / abs their result dtypes', () => {
    const f = new Fusion();
    const r = tensor(f, 'Float');
    const d = tensor(f, 'Double');
    const z = complex(r, r);
    expect(z.dtype).toBe('ComplexFloat');
    expect(complex(d, d).dtype).toBe('ComplexDouble');
    expect(() => complex(r, d)).toThrow(/complex: real and imag must have the same dtype/);
    expect(real(z).dtype).toBe('Float');
    expect(imag(z).dtype).toBe('Float');
    expect(abs(z).dtype).toBe('Float');
    expect(exp(z).dtype).toBe('ComplexFloat');
    expect(div(z, 2).dtype).toBe('ComplexFloat');
    expect(mul(z, d).dtype).toBe('ComplexDouble');
    expect(cast(z, 'Double').dtype).toBe('Double');
  });

  it('refuse what PyTorch refuses on complex, naming the op and the dtype', () => {
    const f = new Fusion();
    const z = tensor(f, 'ComplexFloat');
    const r = tensor(f, 'Float');
    expect(() => gt(z, z)).toThrow(/gt: not supported for complex dtype ComplexFloat/);
    expect(() => maximum(z, r)).toThrow(/maximum: not supported for complex dtype ComplexFloat/);
    expect(() => max(z, [0])).toThrow(/max: not supported for complex dtype ComplexFloat/);
    expect(() => cumsum(z, 0)).toThrow(/not supported for complex dtype ComplexFloat/);
    expect(() => complex(z, r)).toThrow(/complex: real and imag must be Float or Double/);
    expect(() => real(r)).toThrow(/real: needs a complex input/);
    expect(() => sum(z, [1])).not.toThrow();
  });

  it('print with nvFuser dtype names and complex constants', () => {
    const f = new Fusion();
    const z = tensor(f, 'ComplexDouble', 1);
    f.addOutput(add(z, f.constant(new Complex(1.5, -2), 'ComplexDouble')));
    const r = tensor(f, 'Double', 1);
    f.addOutput(complex(real(z), imag(z)));
    f.addOutput(add(r, r));
    const text = printFusion(f);
    expect(text).toMatch(/= std::complex\(/);
    expect(text).toMatch(/= std::real\(T0/);
    expect(text).toMatch(/= std::imag\(T0/);
    expect(text).toContain('], std::complex<double>');
    expect(text).toMatch(/std::complex<double>\(1\.5, -2\)/);
  });

  it('keep interleaved storage through views (broadcast, permute) and casts', () => {
    const f = new Fusion();
    const z = tensor(f, 'ComplexFloat');
    const w = tensor(f, 'ComplexFloat', 1);
    f.addOutput(add(permute(z, [1, 0]), broadcast(w, [false, true])));
    f.addOutput(cast(z, 'ComplexDouble'));
    f.addOutput(where(gt(real(z), 0), z, 0) as TensorView);
    const zt = HostTensor.fromComplexInterleaved('ComplexFloat', [2, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const wt = HostTensor.fromComplexInterleaved('ComplexFloat', [3], [0.5, 0, 0, 0.5, -1, -1]);
    const [sumOut, castOut, whereOut] = evaluate(f, [zt, wt]) as HostTensor[];
    // out[i][j] = z[j][i] + w[i]
    expect(Array.from(sumOut?.toComplexInterleaved() ?? [])).toEqual([1.5, 2, 7.5, 8, 3, 4.5, 9, 10.5, 4, 5, 10, 11]);
    expect(castOut?.dtype).toBe('ComplexDouble');
    expect(Array.from(castOut?.toComplexInterleaved() ?? [])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(whereOut?.get(0)).toEqual(new Complex(1, 2));
    expect(() => zt.toNumbers()).toThrow(/ComplexFloat element is no real number/);
  });
});
