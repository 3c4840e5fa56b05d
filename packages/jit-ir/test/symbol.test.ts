import { describe, expect, it } from 'vitest';
import { IRError, Symbol, packageName } from '../src/index.js';

describe('Symbol', () => {
  it('parses ns::name', () => {
    const s = Symbol.fromQualString('aten::add');
    expect(s.ns).toBe('aten');
    expect(s.name).toBe('add');
    expect(s.qualString()).toBe('aten::add');
    expect(String(s)).toBe('aten::add');
  });

  it('builds symbols per namespace', () => {
    expect(Symbol.prim('CudaFusionGroup').qualString()).toBe('prim::CudaFusionGroup');
    expect(Symbol.attr('Subgraph').qualString()).toBe('attr::Subgraph');
    expect(Symbol.aten('relu').equals(Symbol.fromQualString('aten::relu'))).toBe(true);
  });

  it('rejects unqualified names', () => {
    expect(() => Symbol.fromQualString('relu')).toThrow(IRError);
    expect(() => Symbol.fromQualString('::relu')).toThrow(IRError);
    expect(() => Symbol.fromQualString('aten::')).toThrow(IRError);
  });

  it('package exports its name', () => {
    expect(packageName).toBe('@tsfuser/jit-ir');
  });
});
