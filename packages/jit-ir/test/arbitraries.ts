// fast-check generators for random well-formed graphs, built through the mutation API in text
// order (so value ids match what the parser would assign).
import fc from 'fast-check';
import {
  Graph,
  SCALAR_TYPES,
  listType,
  optionalType,
  tensorType,
  tupleType,
  simpleType,
  type AttributeValue,
  type Block,
  type ConstantValue,
  type JitType,
  type Value,
} from '../src/index.js';

const nameArb = fc
  .tuple(fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/), fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }))
  .map(([base, suffix]) => (suffix === undefined ? base : `${base}.${suffix}`));

export const typeArb: fc.Arbitrary<JitType> = fc.letrec<{ type: JitType }>((tie) => ({
  type: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...(['Int', 'Float', 'Bool', 'Str', 'Device', 'None', 'Number', 'Scalar', 'Layout', 'ScalarType', 'MemoryFormat', 'Generator', 'Any', 'Complex', 'Function'] as const)).map(simpleType),
    fc
      .record({
        scalarType: fc.option(fc.constantFrom(...SCALAR_TYPES), { nil: null }),
        sizes: fc.option(fc.array(fc.option(fc.integer({ min: 0, max: 4096 }), { nil: null }), { maxLength: 5 }), { nil: null }),
        requiresGrad: fc.option(fc.boolean(), { nil: null }),
        device: fc.option(fc.record({ type: fc.constantFrom('cuda', 'cpu'), index: fc.option(fc.integer({ min: 0, max: 7 }), { nil: null }) }), { nil: null }),
        withStrides: fc.boolean(),
      })
      // PyTorch prints `Tensor(...)` the same for rank 0 and unknown rank; keep rank 0 typed.
      .filter((r) => !(r.scalarType === null && r.sizes !== null && r.sizes.length === 0))
      .map(({ withStrides, sizes, ...rest }) => {
        const complete = sizes !== null && sizes.length > 0 && sizes.every((s) => s !== null);
        const strides = withStrides && complete ? sizes.map((_, i) => sizes.length - i) : null;
        return tensorType({ ...rest, sizes, strides });
      }),
    tie('type').map((t) => optionalType(t)),
    tie('type').map((t) => listType(t)),
    fc.array(tie('type'), { maxLength: 3 }).map((ts) => tupleType(ts)),
  ),
})).type;

const finiteOrSpecial = fc.oneof(fc.double(), fc.constantFrom(0.1, 1e-5, -0, Infinity, -Infinity, NaN, 1e10, 1e16, 123456.789));
const bigintArb = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });

export const attributeArb: fc.Arbitrary<AttributeValue> = fc.oneof(
  bigintArb.map((value): AttributeValue => ({ kind: 'i', value })),
  finiteOrSpecial.map((value): AttributeValue => ({ kind: 'f', value })),
  fc.string({ unit: 'binary' }).map((value): AttributeValue => ({ kind: 's', value })),
  fc.array(bigintArb, { maxLength: 4 }).map((value): AttributeValue => ({ kind: 'is', value })),
  fc.array(finiteOrSpecial, { minLength: 1, maxLength: 4 }).map((value): AttributeValue => ({ kind: 'fs', value: value.some((v) => !Number.isInteger(v)) ? value : [...value, 0.5] })),
  fc.array(fc.string(), { minLength: 1, maxLength: 3 }).map((value): AttributeValue => ({ kind: 'ss', value })),
  typeArb.map((value): AttributeValue => ({ kind: 'ty', value })),
  fc.integer({ min: -1000, max: 1000 }).map((value): AttributeValue => ({ kind: 't', value: { kind: 'scalar', value, floating: false } })),
);

export const constantArb: fc.Arbitrary<ConstantValue> = fc.oneof(
  bigintArb.map((value): ConstantValue => ({ kind: 'int', value })),
  finiteOrSpecial.map((value): ConstantValue => ({ kind: 'float', value })),
  fc.boolean().map((value): ConstantValue => ({ kind: 'bool', value })),
  fc.string({ unit: 'binary' }).map((value): ConstantValue => ({ kind: 'str', value })),
  fc.constant<ConstantValue>({ kind: 'none' }),
  fc.array(fc.integer(), { maxLength: 4 }).map((value): ConstantValue => ({ kind: 'intList', value })),
  fc.record({ type: fc.constantFrom('cuda', 'cpu'), index: fc.option(fc.nat(7), { nil: null }) }).map((value): ConstantValue => ({ kind: 'device', value })),
  fc.integer({ min: -9, max: 9 }).map((value): ConstantValue => ({ kind: 'tensor', value: { kind: 'scalar', value, floating: false } })),
);

/** One step of a recipe; value references are indices taken modulo the values in scope. */
export type Step =
  | { kind: 'constant'; value: ConstantValue; name?: string }
  | { kind: 'op'; op: string; inputs: number[]; outputs: { type: JitType; name?: string }[]; attrs: [string, AttributeValue][]; source?: string }
  | { kind: 'if'; cond: number; then: Step[]; else: Step[]; outputs: JitType[]; thenOut: number[]; elseOut: number[] }
  | { kind: 'loop'; carried: number[]; body: Step[]; bodyOut: number[] }
  | { kind: 'group'; inputs: number[]; body: Step[] };

const attrNameArb = fc.stringMatching(/^[a-z][a-z_]{0,8}$/).filter((n) => n !== 'value');

function stepsArb(depth: number): fc.Arbitrary<Step[]> {
  const leaf: fc.Arbitrary<Step>[] = [
    fc.record({ kind: fc.constant('constant' as const), value: constantArb, name: fc.option(nameArb, { nil: undefined }) }),
    fc.record({
      kind: fc.constant('op' as const),
      op: fc.constantFrom('test::op', 'aten::relu', 'prim::Print', 'prim::TupleConstruct', 'aten::unknown_op'),
      inputs: fc.array(fc.nat(), { maxLength: 4 }),
      outputs: fc.array(fc.record({ type: typeArb, name: fc.option(nameArb, { nil: undefined }) }), { maxLength: 3 }),
      attrs: fc.uniqueArray(fc.tuple(attrNameArb, attributeArb), { maxLength: 3, selector: ([n]) => n }),
      source: fc.option(fc.constantFrom('model.py:12:3', 'x.py:1:1', '<string>:4:0'), { nil: undefined }),
    }),
  ];
  if (depth <= 0) return fc.array(fc.oneof(...leaf), { maxLength: 6 });
  const inner = stepsArb(depth - 1);
  const nested: fc.Arbitrary<Step>[] = [
    fc.record({
      kind: fc.constant('if' as const),
      cond: fc.nat(),
      then: inner,
      else: inner,
      outputs: fc.array(typeArb, { maxLength: 2 }),
      thenOut: fc.array(fc.nat(), { minLength: 2, maxLength: 2 }),
      elseOut: fc.array(fc.nat(), { minLength: 2, maxLength: 2 }),
    }),
    fc.record({ kind: fc.constant('loop' as const), carried: fc.array(fc.nat(), { maxLength: 2 }), body: inner, bodyOut: fc.array(fc.nat(), { minLength: 3, maxLength: 3 }) }),
    fc.record({ kind: fc.constant('group' as const), inputs: fc.array(fc.nat(), { maxLength: 3 }), body: inner }),
  ];
  return fc.array(fc.oneof(...leaf, ...nested), { maxLength: 6 });
}

export const graphRecipeArb = fc.record({
  inputs: fc.array(fc.record({ type: typeArb, name: fc.option(nameArb, { nil: undefined }) }), { maxLength: 4 }),
  steps: stepsArb(2),
  outputs: fc.array(fc.nat(), { maxLength: 3 }),
});
export type GraphRecipe = typeof graphRecipeArb extends fc.Arbitrary<infer R> ? R : never;

function pick(scope: readonly Value[], i: number): Value | null {
  return scope.length === 0 ? null : (scope[i % scope.length] ?? null);
}

function buildSteps(g: Graph, block: Block, steps: readonly Step[], scope: Value[]): void {
  for (const step of steps) {
    switch (step.kind) {
      case 'constant': {
        const v = g.withInsertPoint(block, () => g.insertConstant(step.value));
        if (step.name !== undefined) v.setDebugName(step.name);
        scope.push(v);
        break;
      }
      case 'op': {
        const inputs = step.inputs.map((i) => pick(scope, i)).filter((v): v is Value => v !== null);
        // aten::relu has a schema with one return, which the parser enforces.
        const outputs = step.op === 'aten::relu' ? [step.outputs[0] ?? { type: tensorType() }] : step.op === 'prim::Print' ? [] : step.outputs;
        const n = block.appendNode(g.create(step.op, inputs, 0));
        for (const [name, a] of step.attrs) n.setAttribute(name, a);
        if (step.source !== undefined) n.sourceRange = step.source;
        for (const o of outputs) {
          const v = n.addOutput(o.type);
          if (o.name !== undefined) v.setDebugName(o.name);
          scope.push(v);
        }
        break;
      }
      case 'if': {
        const cond = pick(scope, step.cond) ?? g.withInsertPoint(block, () => g.insertConstant({ kind: 'bool', value: true }));
        const n = block.appendNode(g.create('prim::If', [cond], 0));
        const outs = step.outputs.map((t) => n.addOutput(t));
        for (const [body, picks] of [[step.then, step.thenOut], [step.else, step.elseOut]] as const) {
          const b = n.addBlock();
          const inner = [...scope];
          buildSteps(g, b, body, inner);
          outs.forEach((_, i) => {
            const v = pick(inner, picks[i] ?? 0);
            if (v !== null) b.registerOutput(v);
          });
          if (b.outputs.length !== outs.length) {
            for (let i = b.outputs.length - 1; i >= 0; i--) b.eraseOutput(i);
            for (const _ of outs) b.registerOutput(cond);
          }
        }
        scope.push(...outs);
        break;
      }
      case 'loop': {
        const trip = g.withInsertPoint(block, () => g.insertConstant({ kind: 'int', value: 3 }));
        const cond = g.withInsertPoint(block, () => g.insertConstant({ kind: 'bool', value: true }));
        const carried = step.carried.map((i) => pick(scope, i)).filter((v): v is Value => v !== null);
        const n = block.appendNode(g.create('prim::Loop', [trip, cond, ...carried], 0));
        const outs = carried.map((c) => n.addOutput(c.type));
        const b = n.addBlock();
        const inner = [...scope, b.addInput('i', simpleType('Int'))];
        for (const c of carried) inner.push(b.addInput(undefined, c.type));
        buildSteps(g, b, step.body, inner);
        b.registerOutput(cond);
        carried.forEach((_, i) => b.registerOutput(pick(inner, step.bodyOut[i] ?? 0) ?? cond));
        scope.push(...outs);
        break;
      }
      case 'group': {
        const inputs = step.inputs.map((i) => pick(scope, i)).filter((v): v is Value => v !== null);
        const n = block.appendNode(g.createWithSubgraph('prim::CudaFusionGroup'));
        for (const v of inputs) n.addInput(v);
        const sub = n.g('Subgraph');
        const subScope = inputs.map((v) => sub.addInput(undefined, v.type));
        buildSteps(sub, sub.block, step.body, subScope);
        const last = subScope[subScope.length - 1];
        if (last !== undefined) {
          sub.registerOutput(last);
          scope.push(n.addOutput(last.type));
        }
        break;
      }
    }
  }
}

export function buildGraph(recipe: GraphRecipe): Graph {
  const g = new Graph();
  const scope: Value[] = [];
  for (const i of recipe.inputs) scope.push(g.addInput(i.name, i.type));
  buildSteps(g, g.block, recipe.steps, scope);
  for (const o of recipe.outputs) {
    const v = pick(scope, o);
    if (v !== null) g.registerOutput(v);
  }
  return g;
}
