// Symbols in namespaces, as PyTorch's c10::Symbol: `aten::add`, `prim::If`, `attr::Subgraph`.
// A Symbol is an immutable (namespace, name) pair; node kinds are stored as qualified strings
// and Symbol is the helper to take them apart and build them.

import { IRError } from './errors.js';

export class Symbol {
  private constructor(
    readonly ns: string,
    readonly name: string,
  ) {}

  /** Parses `ns::name`; throws IRError when there is no `::` or either part is empty. */
  static fromQualString(qual: string): Symbol {
    const at = qual.indexOf('::');
    if (at <= 0 || at + 2 >= qual.length) {
      throw new IRError(`'${qual}' is not a qualified symbol of the form ns::name`);
    }
    return new Symbol(qual.slice(0, at), qual.slice(at + 2));
  }

  static aten(name: string): Symbol {
    return new Symbol('aten', name);
  }
  static prim(name: string): Symbol {
    return new Symbol('prim', name);
  }
  static attr(name: string): Symbol {
    return new Symbol('attr', name);
  }

  qualString(): string {
    return `${this.ns}::${this.name}`;
  }
  toString(): string {
    return this.qualString();
  }
  equals(other: Symbol): boolean {
    return this.ns === other.ns && this.name === other.name;
  }
}

/** Well-known node kinds, as qualified strings. */
export const prim = {
  Constant: 'prim::Constant',
  Param: 'prim::Param',
  Return: 'prim::Return',
  If: 'prim::If',
  Loop: 'prim::Loop',
  Print: 'prim::Print',
  RaiseException: 'prim::RaiseException',
  profile: 'prim::profile',
  profile_ivalue: 'prim::profile_ivalue',
  CudaFusionGroup: 'prim::CudaFusionGroup',
  CudaFusionGuard: 'prim::CudaFusionGuard',
  FusionGroup: 'prim::FusionGroup',
  DifferentiableGraph: 'prim::DifferentiableGraph',
  ListConstruct: 'prim::ListConstruct',
  ListUnpack: 'prim::ListUnpack',
  TupleConstruct: 'prim::TupleConstruct',
  TupleUnpack: 'prim::TupleUnpack',
  BroadcastSizes: 'prim::BroadcastSizes',
  ConstantChunk: 'prim::ConstantChunk',
  Uninitialized: 'prim::Uninitialized',
} as const;

/** Attribute names used by the fuser (stored without the `attr::` prefix). */
export const attr = {
  Subgraph: 'Subgraph',
  value: 'value',
  profiled_type: 'profiled_type',
} as const;
