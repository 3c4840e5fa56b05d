// FusionDefinition: the TypeScript counterpart of nvFuser's python `FusionDefinition`.
//
// nvFuser:                              tsfuser:
//   with FusionDefinition() as fd:        const fd = FusionDefinition.build((fd) => {
//       t0 = fd.define_tensor(3)              const t0 = fd.defineTensor(3);
//       fd.add_output(fd.ops.relu(t0))        fd.addOutput(fd.ops.relu(t0));
//                                           });
// `build(fn)` (or `new FusionDefinition().define(fn)`) plays the `with` block: the body records
// the definition, the end of the block finalizes it (looks it up in / inserts it into the
// FusionCache). Each call appends a record and builds the Fusion IR eagerly, so a bad call fails
// at the line that made it. What an addOutput record does (in-place aliases, stride orders) is in
// add-output.ts; what executions leave behind for nvFuser's last_*/profile/validate API is in
// execution-state.ts.
//
// Invariant: state i of `states` is defined by exactly one record whose `outputs` contain i,
// and replaying the records (fromRecords) rebuilds the same states in the same order.

import { Complex, Fusion, castTo, isComplexType, jsConstantType, makeTensor, printFusion, isDataType, type DataType, type Scalar, type TensorView } from '@tsfuser/fusion-ir';
import type { Tensor } from '@tsfuser/device';
import type { CompilePlan } from '@tsfuser/runtime';
import { FusionCache, type FusionCacheEntry } from '../cache/fusion-cache.js';
import { DefinitionError } from '../errors.js';
import type { ExecuteInput } from '../execute/execute.js';
import { recordAlias, type OutputAlias } from '../execute/output-alias.js';
import { applyOutput, type OutputOptions } from './add-output.js';
import { toRecordValue, type ConversionContext } from './arg-conversion.js';
import { ExecutionState, type DefinitionExecuteOptions, type ExecuteProfile } from './execution-state.js';
import { ScalarHandle, TensorHandle, VectorHandle, type Handle, type HandleOwner } from './handles.js';
import { OpArgs, type OpSpec, type ResolvedValue, type StateValue } from './op-spec.js';
import { OPS, opByName, type Ops } from './ops-table.js';
import { printPythonDefinition } from './print-python.js';
import { printTypeScriptDefinition, type PrintTypeScriptOptions } from './print-typescript.js';
import { isStateRef, type FusionRecord, type RecordValue, type StateKind, type StateRef } from './records.js';
import { expandedDims, logicalContiguity, normalizeTensorSpec, type NormalizedTensorSpec, type TensorOptions } from './tensor-spec.js';

export interface FusionDefinitionOptions {
  /** The cache ids refer to (default: the process-wide `FusionCache.get()`). */
  cache?: FusionCache;
}

/** A fusion input as the definition declares it (what execute checks and the CLI generates). */
export type InputDescriptor =
  | { kind: 'tensor'; name: string; spec: NormalizedTensorSpec }
  | { kind: 'scalar'; name: string; dtype: DataType };

interface State {
  kind: StateKind;
  value: StateValue;
  handle: Handle;
}

export class FusionDefinition implements HandleOwner, ConversionContext {
  /** One method per op, nvFuser's `fd.ops` (see docs: every fusion-ir op, camelCase names). */
  readonly ops: Ops;
  readonly cache: FusionCache;
  private readonly recordList: FusionRecord[] = [];
  private readonly states: State[] = [];
  private readonly inputList: InputDescriptor[] = [];
  private readonly aliasList: OutputAlias[] = [];
  private readonly execution = new ExecutionState();
  /** The python_definition dump of execute(), made once rather than a closure per call. */
  private readonly printer = (): string => this.print();
  private fusion = new Fusion();
  private entry: FusionCacheEntry | null = null;

  constructor(options: FusionDefinitionOptions = {}) {
    this.cache = options.cache ?? FusionCache.get();
    const ops: Record<string, (...args: unknown[]) => unknown> = {};
    for (const spec of Object.values(OPS) as OpSpec[]) ops[spec.name] = (...args: unknown[]) => this.callOp(spec, args);
    // The table's typed signatures describe exactly these functions (see ops-table.ts).
    this.ops = ops as unknown as Ops;
  }

  /** Defines and finalizes in one step: nvFuser's `with FusionDefinition() as fd:` block. */
  static build(body: (fd: FusionDefinition) => void, options: FusionDefinitionOptions = {}): FusionDefinition {
    return new FusionDefinition(options).define(body);
  }

  /** The definition cached under `id` (nvFuser's `FusionDefinition(id)`). */
  static fromId(id: number, cache: FusionCache = FusionCache.get()): FusionDefinition {
    const entry = cache.entry(id);
    if (entry === undefined) {
      throw new DefinitionError(`no fusion with id ${id} in the cache (it holds ${cache.numFusions()} fusions)`);
    }
    return FusionDefinition.fromRecords(entry.records, { cache });
  }

  /** Replays a record list into a new, finalized definition. */
  static fromRecords(records: readonly FusionRecord[], options: FusionDefinitionOptions = {}): FusionDefinition {
    const fd = new FusionDefinition(options);
    for (const r of records) fd.replay(r);
    return fd.finalize();
  }

  /** Runs `body` on this definition and finalizes it. */
  define(body: (fd: FusionDefinition) => void): this {
    this.assertOpen();
    body(this);
    return this.finalize();
  }

  /** Ends the definition: registers it in the cache (idempotent). */
  finalize(): this {
    this.entry ??= this.cache.lookupOrInsert(this.recordList, this.fusion);
    return this;
  }

  get isFinalized(): boolean {
    return this.entry !== null;
  }

  /** The fusion's id in its cache; identical definitions share it. */
  id(): number {
    return this.finalize().cacheEntry().id;
  }

  records(): readonly FusionRecord[] {
    return this.recordList;
  }

  inputs(): readonly InputDescriptor[] {
    return this.inputList;
  }

  /** Outputs written into inputs (add_output(t, alias_input=x)), by fusion output/input index. */
  outputAliases(): readonly OutputAlias[] {
    return this.aliasList;
  }

  /** The Fusion IR this definition built (the cached one once finalized). */
  fusionIr(): Fusion {
    return this.entry?.fusion ?? this.fusion;
  }

  // ---- defining inputs, scalars, vectors and outputs ---------------------------------------

  /** An input tensor: by rank (+dtype), by sizes/strides, or by symbolic sizes and contiguity. */
  defineTensor(rankOrOptions: number | TensorOptions, dtype?: DataType): TensorHandle {
    const spec = normalizeTensorSpec(rankOrOptions, dtype);
    const out = this.replay({
      op: 'defineTensor',
      args: [spec.shape, spec.contiguity, spec.dtype, spec.isCpu, spec.strideOrder],
      outputs: [this.states.length],
    });
    return out[0] as TensorHandle;
  }

  /**
   * An input tensor shaped like `tensor` (nvFuser's fd.from_pytorch): its sizes and strides give
   * the contiguity and stride order; sizes are symbolic unless `staticSizes`.
   */
  fromPytorch(tensor: Tensor, staticSizes = false): TensorHandle {
    return this.defineTensor({ sizes: tensor.sizes, strides: tensor.strides, dtype: tensor.dtype, staticSizes });
  }

  /** A scalar: `null` value = a fusion input of `dtype`; otherwise a constant. */
  defineScalar(value: number | boolean | bigint | Complex | null = null, dtype?: DataType): ScalarHandle {
    if (value !== null && typeof value !== 'number' && typeof value !== 'boolean' && typeof value !== 'bigint' && !(value instanceof Complex)) {
      throw new DefinitionError(`defineScalar: value must be a number, boolean, Complex or null, got ${String(value)}`);
    }
    // A Complex value is a ComplexDouble unless a dtype says otherwise (python complex numbers are double precision).
    const resolved = dtype ?? (value === null ? 'Double' : value instanceof Complex ? 'ComplexDouble' : jsConstantType(value));
    if (!isDataType(resolved)) throw new DefinitionError(`defineScalar: unknown dtype ${JSON.stringify(resolved)}`);
    if (value instanceof Complex && !isComplexType(resolved)) {
      throw new DefinitionError(`defineScalar: the complex value ${String(value)} needs a complex dtype (ComplexFloat or ComplexDouble), got ${resolved}`);
    }
    // Records hold plain data: a complex constant is the pair [re, im].
    const v = value === null ? null : value instanceof Complex ? [value.re, value.im] : typeof value === 'boolean' ? value : Number(value);
    const out = this.replay({ op: 'defineScalar', args: [v, resolved], outputs: [this.states.length] });
    return out[0] as ScalarHandle;
  }

  /** A constant scalar, its type inferred from the value unless given (nvFuser's define_constant). */
  defineConstant(value: number | boolean | bigint, dtype?: DataType): ScalarHandle {
    return this.defineScalar(value, dtype);
  }

  /**
   * A vector of sizes (for shapes): integers and scalar handles, or — given a count, as nvFuser's
   * `define_vector(size)` — that many new Int scalar inputs.
   */
  defineVector(elements: number | readonly (number | ScalarHandle)[], dtype: DataType = 'Int'): VectorHandle {
    if (typeof elements === 'number') {
      if (!Number.isInteger(elements) || elements < 0) throw new DefinitionError(`defineVector: size must be a non-negative integer, got ${elements}`);
      return this.defineVector(Array.from({ length: elements }, () => this.defineScalar(null, 'Int')), dtype);
    }
    if (dtype !== 'Int') throw new DefinitionError(`defineVector: a vector of sizes has dtype Int, got ${dtype}`);
    const args = elements.map((e, i): RecordValue => {
      if (typeof e === 'number' && Number.isInteger(e)) return e;
      if (e instanceof ScalarHandle) return this.refOf(e, `defineVector: element ${i}`);
      throw new DefinitionError(`defineVector: element ${i} must be an integer or a scalar, got ${String(e)}`);
    });
    const out = this.replay({ op: 'defineVector', args: [args, dtype], outputs: [this.states.length] });
    return out[0] as VectorHandle;
  }

  /**
   * Marks a tensor or scalar as a fusion output. nvFuser's forms: `addOutput(t)`,
   * `addOutput(t, x)` / `addOutput(t, { aliasInput: x })` (the result is written into input `x`,
   * and not returned unless `t` already was an output), `addOutput(t, { strideOrder })`.
   */
  addOutput(output: TensorHandle | ScalarHandle, aliasOrOptions?: TensorHandle | OutputOptions | null): void {
    if (!(output instanceof TensorHandle) && !(output instanceof ScalarHandle)) {
      throw new DefinitionError(`addOutput: expected a tensor or scalar, got ${String(output)}`);
    }
    const options: OutputOptions = aliasOrOptions instanceof TensorHandle ? { aliasInput: aliasOrOptions } : (aliasOrOptions ?? {});
    const args: RecordValue[] = [this.refOf(output, 'addOutput')];
    if (options.aliasInput !== undefined && options.aliasInput !== null) {
      if (!(options.aliasInput instanceof TensorHandle)) throw new DefinitionError(`addOutput: alias_input must be a tensor, got ${String(options.aliasInput)}`);
      if (options.strideOrder !== undefined && options.strideOrder.length > 0) throw new DefinitionError("addOutput: stride_order can't be dictated for aliased outputs");
      args.push(this.refOf(options.aliasInput, 'addOutput: alias_input'));
    } else if (options.strideOrder !== undefined && options.strideOrder.length > 0) {
      const order = options.strideOrder;
      if (!Array.isArray(order) || !order.every((v) => Number.isInteger(v))) throw new DefinitionError(`addOutput: stride_order must be a list of integers, got ${String(order)}`);
      args.push(null, [...order]);
    }
    this.replay({ op: 'addOutput', args, outputs: [] });
  }

  // ---- printing and execution ---------------------------------------------------------------

  /** The definition as TypeScript source that re-creates it (nvFuser's fd.print()). */
  print(options: PrintTypeScriptOptions = {}): string {
    return printTypeScriptDefinition(this.records(), { name: `nvfuserFusionId${this.id()}`, ...options });
  }

  /** The definition in nvFuser's python_definition form. */
  printPython(): string {
    return printPythonDefinition(this.records(), `nvfuser_fusion_id${this.id()}`);
  }

  /** The Fusion IR in nvFuser's format (nvFuser's fd.print_ir()). */
  printIr(): string {
    return printFusion(this.fusionIr());
  }

  /**
   * Runs the fusion; returns one tensor per output (scalar outputs as 0-dim tensors). Aliased
   * outputs are written into their inputs and, as in nvFuser, not returned when hidden.
   */
  execute(inputs: readonly ExecuteInput[], options: DefinitionExecuteOptions = {}): Promise<Tensor[]> {
    // Not an async method: the execution's promise is returned as is (a cached execute's host
    // path saves the microtask turns of adopting it); a definition error is still a rejection.
    try {
      this.finalize();
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return this.execution.execute(this.fusionIr(), this.inputList, this.aliasList, inputs, options, this.printer);
  }

  /**
   * nvFuser's fd.validate(inputs, reference_outputs): executes and throws a ValidationError when an
   * output differs from `expected` beyond its dtype's tolerance; without `expected` the reference
   * evaluator's outputs are the reference.
   */
  async validate(inputs: readonly ExecuteInput[], expected?: readonly Tensor[], options: DefinitionExecuteOptions = {}): Promise<void> {
    this.finalize();
    await this.execution.validate(this.fusionIr(), this.inputList, this.aliasList, inputs, expected, options);
  }

  /**
   * What execute() would return, from the reference evaluator, without writing any aliased input:
   * compute it before execute() when checking a definition with in-place outputs.
   */
  referenceOutputs(inputs: readonly ExecuteInput[]): Tensor[] {
    this.finalize();
    return this.execution.referenceOutputs(this.fusionIr(), this.aliasList, inputs);
  }

  /**
   * CUDA source of the kernels the last execute ran, in launch order (nvFuser's
   * fd.last_cuda_code(): the most recent runtime's kernels); `intrinsicCode: true` includes the
   * runtime helpers compiled with them, as nvFuser's flag does. After an execute on the reference
   * backend, the kernels the GPU path compiles for its inputs.
   */
  lastCudaCode(options: { intrinsicCode?: boolean } = {}): string {
    return this.execution
      .lastKernels(this.fusionIr(), 'lastCudaCode')
      .map((k) => (options.intrinsicCode === true ? k.source : k.dumps.cuda))
      .join('');
  }

  /**
   * The compile plan the last execute ran (segments, schedulers, parameters, kernels, launches);
   * null before an execute or after one on a backend that runs no plan (the reference backend).
   */
  lastExecutedPlan(): CompilePlan | null {
    return this.execution.lastRanPlan();
  }

  /** The scheduled Fusion IR of the last execute's kernels, in launch order (nvFuser's fd.last_scheduled_fusion_ir()). */
  lastScheduledFusionIr(): string {
    return this.execution
      .lastKernels(this.fusionIr(), 'lastScheduledFusionIr')
      .map((k) => k.dumps.fusionIr)
      .join('');
  }

  /** Timings of the last execute run with `profile: true` (nvFuser's fd.profile()). */
  profile(): ExecuteProfile {
    return this.execution.lastProfile();
  }

  /** Dumps the last execute captured (`captureDebugOutput: true`); null when it did not capture (nvFuser's fd.debug_output()). */
  debugOutput(): string | null {
    return this.execution.lastDebugOutput();
  }

  // ---- HandleOwner / ConversionContext --------------------------------------------------------

  sizeOf(tensor: TensorHandle, dim: number): ScalarHandle {
    return this.callOp(OPS.size, [tensor, dim]) as ScalarHandle;
  }

  shapeOf(tensor: TensorHandle): VectorHandle {
    return this.callOp(OPS.shape, [tensor]) as VectorHandle;
  }

  refOf(handle: Handle, where: string): StateRef {
    if (handle.owner !== this || this.states[handle.index]?.handle !== handle) {
      throw new DefinitionError(`${where}: ${handle.toString()} belongs to another FusionDefinition`);
    }
    return { ref: handle.index };
  }

  autoScalar(value: number | boolean | bigint | Complex): StateRef {
    return { ref: this.defineScalar(value).index };
  }

  // ---- internals ------------------------------------------------------------------------------

  private cacheEntry(): FusionCacheEntry {
    if (this.entry === null) throw new DefinitionError('the definition is not finalized');
    return this.entry;
  }

  private assertOpen(): void {
    if (this.entry !== null) throw new DefinitionError('the definition is finalized; start a new FusionDefinition to define another fusion');
  }

  private callOp(spec: OpSpec, args: readonly unknown[]): Handle | Handle[] {
    this.assertOpen();
    if (args.length > spec.params.length) {
      throw new DefinitionError(`${spec.name}: takes at most ${spec.params.length} arguments (${spec.params.map((p) => p.name).join(', ')}), got ${args.length}`);
    }
    const recordArgs = spec.params.map((param, i) => {
      let value = args[i];
      if (value === undefined) {
        if (param.default === undefined) throw new DefinitionError(`${spec.name}: missing argument ${param.name}`);
        value = param.default;
      }
      return toRecordValue(this, spec, param, value);
    });
    const handles = this.replay({ op: spec.name, args: recordArgs, outputs: [] });
    return typeof spec.output === 'number' ? handles : (handles[0] as Handle);
  }

  /**
   * Applies one record: builds its Fusion IR, registers its output states and appends it.
   * Records from `callOp` come without outputs; replayed ones carry theirs, which must match.
   */
  private replay(record: FusionRecord): Handle[] {
    this.assertOpen();
    const values = this.applyRecord(record);
    const handles = values.map((v) => this.addState(v));
    const outputs = handles.map((h) => h.index);
    if (record.outputs.length > 0 && record.outputs.join(',') !== outputs.join(',')) {
      throw new DefinitionError(`record ${record.op} defines states [${record.outputs.join(', ')}] but replay produced [${outputs.join(', ')}]`);
    }
    this.recordList.push({ op: record.op, args: record.args, outputs });
    return handles;
  }

  private applyRecord(record: FusionRecord): StateValue[] {
    const fusion = this.fusion;
    const a = record.args;
    switch (record.op) {
      case 'defineTensor':
        return [this.applyDefineTensor(a)];
      case 'defineScalar': {
        const [recorded, dtype] = a as [number | boolean | readonly number[] | null, DataType];
        const value = Array.isArray(recorded) ? new Complex(recorded[0] as number, recorded[1] as number) : (recorded as number | boolean | null);
        if (value === null) {
          const s = fusion.newSymbolicScalar(dtype);
          fusion.addInput(s);
          this.inputList.push({ kind: 'scalar', name: `S${this.states.length}`, dtype });
          return [s];
        }
        return [fusion.constant(castTo(value, dtype), dtype)];
      }
      case 'defineVector': {
        const elements = (a[0] as readonly RecordValue[]).map((e) => (typeof e === 'number' ? fusion.index(e) : this.resolveScalar(e)));
        return [elements];
      }
      case 'addOutput': {
        const alias = applyOutput(fusion, a.map((v) => this.resolve(v)));
        if (alias !== null) recordAlias(this.aliasList, alias);
        return [];
      }
      default: {
        const spec = opByName(record.op);
        if (spec === undefined) throw new DefinitionError(`unknown op '${record.op}'`);
        const out = spec.apply(fusion, new OpArgs(spec, a.map((v) => this.resolve(v))));
        const expected = typeof spec.output === 'number' ? spec.output : 1;
        if (out.length !== expected) throw new DefinitionError(`${spec.name}: produced ${out.length} values, expected ${expected}`);
        return out;
      }
    }
  }

  private applyDefineTensor(a: readonly RecordValue[]): TensorView {
    const [shape, contiguity, dtype, isCpu, strideOrder] = a as [number[], (boolean | null)[], DataType, boolean, number[]];
    const spec: NormalizedTensorSpec = { shape, contiguity, dtype, isCpu, strideOrder };
    // The record keeps nvFuser's form (contiguity per allocation position); the IR wants it per
    // logical dim, with expanded dims marked, and no allocation domain for the identity order.
    const identity = strideOrder.every((v, d) => v === shape.length - 1 - d);
    const tv = makeTensor(this.fusion, {
      shape,
      contiguity: logicalContiguity(spec),
      dtype,
      strideOrder: identity ? [] : strideOrder,
      expanded: expandedDims(spec),
    });
    this.fusion.addInput(tv);
    this.inputList.push({ kind: 'tensor', name: `T${this.states.length}`, spec });
    return tv;
  }

  private resolve(v: RecordValue): ResolvedValue {
    if (isStateRef(v)) {
      const s = this.states[v.ref];
      if (s === undefined) throw new DefinitionError(`reference to undefined state ${v.ref}`);
      return s.value;
    }
    if (Array.isArray(v)) return (v as readonly RecordValue[]).map((e) => this.resolve(e));
    return v as number | boolean | string | null;
  }

  private resolveScalar(v: RecordValue): Scalar {
    const r = this.resolve(v);
    if (typeof r === 'object' && r !== null && !Array.isArray(r) && 'kind' in r && r.kind === 'scalar') return r;
    throw new DefinitionError('expected a scalar reference');
  }

  private addState(value: StateValue): Handle {
    const index = this.states.length;
    let handle: Handle;
    let kind: StateKind;
    if (Array.isArray(value)) {
      kind = 'vector';
      handle = new VectorHandle(this, index, value.length);
    } else if ((value as TensorView | Scalar).kind === 'tensorView') {
      const tv = value as TensorView;
      kind = 'tensor';
      handle = new TensorHandle(this, index, tv.domain.logicalNoReductions().length, tv.dtype);
    } else {
      kind = 'scalar';
      handle = new ScalarHandle(this, index, (value as Scalar).dtype);
    }
    this.states.push({ kind, value, handle });
    return handle;
  }
}
