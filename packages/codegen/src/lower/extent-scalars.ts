// Part of core pass `kernel-signature` (run by lowerScalarExprs): the scalar math behind extents
// computed from scalar inputs. In: the fusion's tensors. Out: the scalar expressions, in
// topological order, that an IterDomain extent of a root or logical domain needs and that read a
// scalar input of the kernel — a reshape to sizes computed at run time (test_reshape_dynamic:
// `[S0, 192 * reciprocal(S0) - …]`) has such an extent, which no tensor argument's sizes give.
// Invariant: only expressions whose output is not yet named (not an input, not bound by the
// signature) and that the math (fusion.exprs()) does not already compute are returned, each once.

import type { Expr, Fusion, Scalar } from '@tsfuser/fusion-ir';

export function extentScalarExprs(fusion: Fusion, named: (s: Scalar) => boolean): Expr[] {
  const scalarInputs = new Set(fusion.inputs.filter((v) => v.kind === 'scalar'));
  const readsScalarInput = new Map<Scalar, boolean>();
  const reads = (s: Scalar): boolean => {
    const known = readsScalarInput.get(s);
    if (known !== undefined) return known;
    const def = s.definition;
    const r = scalarInputs.has(s) || (def !== null && def.inputs.some((v) => v.kind === 'scalar' && reads(v)));
    readsScalarInput.set(s, r);
    return r;
  };
  const inMath = new Set(fusion.exprs());
  const order: Expr[] = [];
  const visited = new Set<Scalar>();
  const visit = (s: Scalar): void => {
    if (visited.has(s) || s.value !== null || named(s)) return;
    visited.add(s);
    const def = s.definition;
    if (def === null || inMath.has(def)) return;
    for (const v of def.inputs) if (v.kind === 'scalar') visit(v);
    order.push(def);
  };
  for (const tv of fusion.allTvs()) {
    for (const id of [...tv.domain.maybeRoot(), ...tv.domain.logicalNoReductions()]) {
      for (const extent of [id.extent, id.expandedExtent]) {
        if (extent !== null && extent.definition !== null && reads(extent)) visit(extent);
      }
    }
  }
  return order;
}
