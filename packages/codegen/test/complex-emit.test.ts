// Complex kernels as emitted (no GPU, no nvcc): the complex runtime is prepended only to kernels
// with complex values; ComplexFloat tensors vectorize by 2 elements (16 bytes) and ComplexDouble
// by 1 (one 16-byte element); complex scalar parameters are nvf_cdouble by value; sums reduce
// nvf_cfloat / nvf_cdouble with `+`; complex → real casts read `.re`; complex(re, im) builds with
// nvf_*_make. Values are checked by test/complex-host.test.ts (the helpers against PyTorch) and on
// the GPU by tsfuser-complex-suite.
import { describe, expect, it } from 'vitest';
import { add, cast, Fusion, makeTensor, real } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { complexCases, runtimeInfoOf } from '@tsfuser/test-support';
import { compileFusion } from '../src/index.js';

function compiled(name: string, scale: 'small' | 'large') {
  const c = complexCases(scale).find((x) => x.name.startsWith(name));
  if (c === undefined) throw new Error(`no complex case ${name}`);
  return compileFusion(c.fusion, runtimeInfoOf(c.fusion, c.inputs(5)), { fusionId: 1 });
}

describe('complex kernels', () => {
  it('vectorize ComplexFloat by 2 elements and ComplexDouble by 1', () => {
    const f = compiled('complex_pointwise_ComplexFloat', 'large');
    expect(f.dumps.cuda).toContain('loadGlobalToLocalEvictLastL2<nvf_cfloat, 2>');
    expect(f.dumps.cuda).toContain('loadLocalToGlobal<nvf_cfloat, 2>');
    expect(f.dumps.cuda).toMatch(/Tensor<nvf_cfloat, 2, 2> T0/);
    expect(f.dumps.cuda).toMatch(/, nvf_cdouble c\d+,/); // the complex scalar input, by value
    const d = compiled('complex_pointwise_ComplexDouble', 'large');
    expect(d.dumps.cuda).not.toMatch(/loadGlobalToLocal(EvictLastL2)?<nvf_cdouble, [2-9]>/);
  });

  it('emit the ops through the runtime helpers and operators', () => {
    const cuda = compiled('complex_pointwise_ComplexFloat', 'small').dumps.cuda;
    for (const helper of ['nvf_exp(', 'nvf_log(', 'nvf_sqrt(', 'nvf_sin(', 'nvf_cos(', 'nvf_tanh(', 'nvf_reciprocal(', 'nvf_neg(', 'nvf_abs(', 'nvf_real(', 'nvf_imag(', 'nvf_cfloat_make(']) {
      expect(cuda, helper).toContain(helper);
    }
    expect(cuda).toMatch(/= \(T\d+\[\d+\]\)\.re;/); // cast to Float keeps the real part
    expect(cuda).toMatch(/nvf_to_cfloat\(/); // Float input cast to complex
  });

  it('reduce complex sums with + in block reductions', () => {
    const k = compiled('complex_sum_dim1_ComplexDouble', 'large');
    expect(k.params.schedulerType).toBe('reduction');
    expect(k.dumps.cuda).toMatch(/\[\]\(nvf_cdouble& a, nvf_cdouble b\) \{ a = \(a \+ b\); \}/);
    expect(k.dumps.cuda).toContain('nvf_cdouble_make(0.0000000000000000e+0, 0.0000000000000000e+0)');
  });

  it('prepend the complex runtime only to kernels with complex values', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1], dtype: 'Float' });
    f.addInput(x);
    f.addOutput(add(x, x));
    const realKernel = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [128] }]), { fusionId: 2 });
    expect(realKernel.source).not.toContain('---- complex ----');
    const g = new Fusion();
    const z = makeTensor(g, { shape: [-1], dtype: 'ComplexFloat' });
    g.addInput(z);
    g.addOutput(cast(real(z), 'Double'));
    const complexKernel = compileFusion(g, makeRuntimeInfo(g, [{ sizes: [128] }]), { fusionId: 3 });
    expect(complexKernel.source).toContain('---- complex ----');
  });
});
