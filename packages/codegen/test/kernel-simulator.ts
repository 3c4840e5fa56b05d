// A CPU interpreter of kernel IR, for tests: runs every block of the launch (x fastest, then
// y), the threads of a block in lock step (loops are thread-invariant, `if` narrows the active
// mask, BlockReduce is a collective that requires every thread of the block, as __syncthreads
// does; GridReduce keeps each block's partials and lets the last block of a row combine them;
// GridOuterStore / GridOuterReduce keep per-block column partials and combine them when the
// last block reaches the grid barrier). It checks the
// lowering's indexing, predicates, thread predicates and block reductions against the
// reference evaluator without a GPU. Welford statements (WelfordUpdate, BlockWelford,
// GridWelford) merge (avg, M2, N) states with the runtime library's welfordCombine. Values are JS numbers (float dtypes, Bool, integers exact below 2^53); results
// are rounded to each store's dtype; float ops compute in double (not bit-exact to CUDA). Rng
// statements take the reference evaluator's value at their linear index (what the Philox helper
// computes; the helper itself is checked by test/rng-host.test.ts). IndexedLoad statements throw
// where the kernel would trap (an index outside the lookup dim).
import { HostTensor, rngValueAt, type RngDtype } from '@tsfuser/fusion-ir';
import { BINARY, EMPTY_STATE, Literals, REDUCE, round, UNARY, welfordCombine, type WelfordState } from './kernel-simulator-scalars.js';
import { IndexCompiler, LoopSlots, type FastDivisor, type IndexFn } from './kernel-simulator-index.js';
import { divisorMagic } from '../src/index.js';
import type { BulkRowCopy, IndexExpr, Kernel, LaunchParams, Operand, Predicate, Stmt, TensorAccess } from '../src/index.js';
import { iadd, iconst } from '../src/kernel-ir/index-expr.js';

/** Lane k of a reduction of lanes: the element k after lane 0's. */
function laneAccess(a: TensorAccess, k: number): TensorAccess {
  return k === 0 ? a : { ...a, index: iadd(a.index, iconst(k)) };
}

interface GlobalTensor {
  values: Float64Array;
  sizes: readonly number[];
  strides: readonly number[];
}

/**
 * Runs `kernel` with `launch`; `args` in kernel parameter order (inputs, then outputs; scalars
 * as numbers). Returns the tensor arguments after the run, in order.
 */
export function simulateKernel(kernel: Kernel, launch: LaunchParams, args: readonly (HostTensor | number)[]): HostTensor[] {
  const globals = new Map<string, GlobalTensor>();
  const names = new Map<string, number>();
  kernel.params.forEach((p, i) => {
    const t = args[i];
    if (t === undefined) throw new Error(`simulator: no argument for ${p.name}`);
    if (p.kind === 'scalar' || typeof t === 'number') {
      if (typeof t !== 'number') throw new Error(`simulator: scalar ${p.name} given a tensor`);
      names.set(p.name, t);
      return;
    }
    if (passedAsStorage(t)) {
      // A strided tensor (an expanded, stride-0 input or output) is passed as its storage and
      // strides, as the runtime passes it: the kernel must index it through its strides.
      const storage = new HostTensor(t.dtype, [t.data.length - t.offset], [1], t.data, t.offset);
      const values = Float64Array.from(storage.toNumbers());
      globals.set(p.name, { values, sizes: t.sizes, strides: t.strides.map((s) => s) });
      return;
    }
    const values = Float64Array.from(t.toNumbers());
    const strides = t.sizes.map((_, d) => t.sizes.slice(d + 1).reduce((a, b) => a * b, 1));
    globals.set(p.name, { values, sizes: t.sizes, strides });
  });
  const [bdx, bdy] = launch.block;
  const threads = bdx * bdy;
  /** The block being simulated, and the loop indices live in it (read by compiled index closures). */
  let block = 0;
  const loops = new LoopSlots();
  const blockFlags = new Map<string, number>();
  /**
   * The closure reading `name`: thread and block indices, then (in this order, when it runs) a
   * block flag, a loop index, a kernel name (parameter, index local, scalar local), and last a
   * tensor's logical size or stride (fixed for the launch, so resolved once here).
   */
  const symbol = (name: string): IndexFn => {
    if (name === 'threadIdx.x') return (tid) => tid % bdx;
    if (name === 'threadIdx.y') return (tid) => Math.floor(tid / bdx);
    if (name === 'blockIdx.x') return () => block % launch.grid[0];
    if (name === 'blockIdx.y') return () => Math.floor(block / launch.grid[0]);
    const m = /^(T\d+)\.(logical_size|alloc_stride)\[(\d+)\]$/.exec(name);
    const g = m === null ? undefined : globals.get(m[1] as string);
    const fixed = m !== null && g !== undefined ? ((m[2] === 'logical_size' ? g.sizes : g.strides)[Number(m[3])] as number) : undefined;
    const loop = loops.slot(name);
    return () => {
      const f = blockFlags.get(name);
      if (f !== undefined) return f;
      if (loop.live) return loop.value;
      const n = names.get(name);
      if (n !== undefined) return n;
      if (fixed !== undefined) return fixed;
      throw new Error(`simulator: unknown name ${name}`);
    };
  };
  const fastDivisors = new Map<string, FastDivisor>();
  const indexFns = new IndexCompiler(symbol, fastDivisors);
  const ix = (e: IndexExpr, tid: number): number => indexFns.compile(e)(tid);
  const literals = new Literals();
  const literal = (text: string): number => literals.get(text);
  for (const l of kernel.indexLocals) names.set(l.name, symbol(l.value)(0));
  // Fast divisors: the magic numbers the packer computes from the size its source names
  // (tensor parameter, dim), which must be the extent the divisor stands for.
  for (const d of kernel.divisors) {
    const source = globals.get(kernel.params[d.param]?.name ?? '')?.sizes[d.dim];
    if (source === undefined || source !== names.get(d.extent)) throw new Error(`simulator: fast divisor ${d.name} reads size ${String(source)}, its extent ${d.extent} is ${String(names.get(d.extent))}`);
    fastDivisors.set(d.name, { d: source, ...divisorMagic(source) });
  }
  /** Grid reduction partials: row (blockIdx.x, segment) → one partial per blockIdx.y. */
  const gridPartials = new Map<string, (number | undefined)[]>();
  const gridStates = new Map<string, (WelfordState | undefined)[]>();
  const arrived = new Map<number, number>();
  /** Grid outer reductions: each work buffer (gridDim.x × columns partials), and blocks past the barrier. */
  const outerWork = new Map<string, Float64Array>(kernel.deviceGlobals.map((g) => [g.name, new Float64Array(g.size).fill(NaN)]));
  let outerArrived = 0;

  for (block = 0; block < launch.grid[0] * launch.grid[1]; block += 1) {
    blockFlags.clear();
    loops.endBlock();
    const locals = Array.from({ length: threads }, () => new Map<string, number[]>());
    /** Bulk-copied row buffers of this block, and those whose copy every thread has waited for. */
    const shared = new Map<string, number[]>();
    const landed = new Set<string>();
    /**
     * Shared tiles (shared Allocates): the thread that wrote each element since the last
     * BlockSync (-1: none). Threads run in lock step here, but not on the GPU: an element
     * written by one thread and read or written by another with no BlockSync between is a race.
     */
    const tileWriters = new Map<string, Int32Array>();
    const checkTileRace = (a: TensorAccess, at: number, tid: number, isWrite: boolean): void => {
      const w = a.memory === 'Shared' ? tileWriters.get(a.tensor) : undefined;
      if (w === undefined) return;
      const prev = w[at] ?? -1;
      if (prev >= 0 && prev !== tid) throw new Error(`simulator: shared ${a.tensor}[${at}] ${isWrite ? 'written' : 'read'} by thread ${tid} after thread ${prev} wrote it with no BlockSync between (block ${block})`);
      if (isWrite) w[at] = tid;
    };
    /** Copies completed on each buffer slot's mbarrier (its completed phases). */
    const phases = new Map<string, number>();
    /** Elements of one slot of each bulk-copied buffer (several stages: slots one after another). */
    const slotCapacity = new Map<string, number>();
    const slotKey = (buffer: string, slot: number): string => `${buffer}#${slot}`;
    const buffer = (a: TensorAccess, tid: number): { data: ArrayLike<number> & { [i: number]: number }; at: number } => {
      if (a.memory === 'Global') {
        const g = globals.get(a.tensor);
        if (g === undefined) throw new Error(`simulator: no global ${a.tensor}`);
        const at = ix(a.index, tid);
        if (at < 0 || at >= g.values.length) throw new Error(`simulator: ${a.tensor}[${at}] out of bounds (${g.values.length}) in block ${block}, thread ${tid}`);
        return { data: g.values, at };
      }
      if (a.memory === 'Shared') {
        const b = shared.get(a.tensor);
        const at = ix(a.index, tid);
        // A bulk buffer's slot (of several stages) must have landed; a shared tile has one slot.
        const capacity = slotCapacity.get(a.tensor);
        const slot = capacity === undefined ? a.tensor : slotKey(a.tensor, Math.floor(at / capacity));
        if (b === undefined || !landed.has(slot)) throw new Error(`simulator: ${a.tensor}[${at}] read before its bulk copy was waited for (block ${block})`);
        if (at < 0 || at >= b.length) throw new Error(`simulator: shared ${a.tensor}[${at}] out of bounds (${b.length})`);
        return { data: b, at };
      }
      const l = (locals[tid] as Map<string, number[]>).get(a.tensor);
      if (l === undefined) throw new Error(`simulator: local ${a.tensor} used before its allocation`);
      const at = ix(a.index, tid);
      if (at < 0 || at >= l.length) throw new Error(`simulator: local ${a.tensor}[${at}] out of bounds (${l.length})`);
      return { data: l, at };
    };
    const checkVectorAccess = (a: TensorAccess, tid: number, width: number): void => {
      if (a.memory !== 'Global') return;
      const { data, at } = buffer(a, tid);
      if (at % width !== 0) throw new Error(`simulator: vector access of ${width} at ${a.tensor}[${at}] is not aligned to its width (block ${block}, thread ${tid})`);
      if (at + width > data.length) throw new Error(`simulator: vector access of ${width} at ${a.tensor}[${at}] runs past its end (${data.length}) (block ${block}, thread ${tid})`);
    };
    const read = (o: Operand, tid: number): number => {
      if (o.kind === 'scalar') return names.get(o.text) ?? literal(o.text);
      const b = buffer(o, tid);
      const v = b.data[b.at] as number;
      if (o.memory === 'Local' && v === undefined) throw new Error(`simulator: uninitialised ${o.tensor}`);
      return v;
    };
    const write = (a: TensorAccess, tid: number, v: number): void => {
      const b = buffer(a, tid);
      b.data[b.at] = round(v, a.dtype);
    };
    /** Block-uniform predicates (a row's validity), evaluated for thread 0. */
    const blockHolds = (ps: readonly Predicate[] | undefined): boolean => ps === undefined || indexFns.holds(ps)(0);
    /** One bulk copy: the buffer holds exactly the copied elements (the rest NaN, so a read there is caught), in flight until a wait. */
    const bulkCopy = (c: BulkRowCopy): void => {
      const b = shared.get(c.buffer);
      if (b === undefined) throw new Error(`simulator: bulk copy into ${c.buffer} before its BulkLoadIssue`);
      const slot = c.stage === undefined ? 0 : ix(c.stage, 0);
      if (slot < 0 || slot >= (c.stages ?? 1)) throw new Error(`simulator: bulk copy into slot ${slot} of ${c.buffer} (${c.stages ?? 1} stages)`);
      const key = slotKey(c.buffer, slot);
      // A copy into a slot whose previous copy no thread waited for would overwrite rows never read (or race their reads).
      if ((phases.get(key) ?? 0) > 0 && !landed.has(key)) throw new Error(`simulator: bulk copy into ${c.buffer} slot ${slot} while its previous copy is still in flight (block ${block})`);
      b.fill(NaN, slot * c.capacity, (slot + 1) * c.capacity);
      const n = ix(c.elements, 0);
      if (n > c.capacity) throw new Error(`simulator: bulk copy of ${n} elements into ${c.buffer}[${c.capacity}]`);
      const from = buffer(c.source, 0);
      for (let k = 0; k < n; k += 1) {
        if (from.at + k >= from.data.length) throw new Error(`simulator: bulk copy reads past ${c.source.tensor}`);
        b[slot * c.capacity + k] = from.data[from.at + k] as number;
      }
      landed.delete(key);
      phases.set(key, (phases.get(key) ?? 0) + 1);
    };
    const exec = (stmts: readonly Stmt[], mask: readonly boolean[]): void => {
      for (const s of stmts) {
        switch (s.kind) {
          case 'ForLoop': {
            const n = ix(s.extent, 0);
            const slot = loops.slot(s.index);
            for (let i = 0; i < n; i += 1) {
              slot.value = i;
              slot.live = true;
              exec(s.body, mask);
            }
            slot.live = false;
            break;
          }
          case 'IfThenElse': {
            const holds = indexFns.holds(s.predicates);
            const ok = mask.map((m, t) => m && holds(t));
            exec(s.then, ok);
            if (s.else.length > 0) exec(s.else, mask.map((m, t) => m && !(ok[t] as boolean)));
            break;
          }
          case 'Allocate':
            if (s.memory === 'Shared') {
              // A block-wide tile: NaN until written, so a read of an element nobody wrote shows.
              shared.set(s.buffer, new Array<number>(s.size).fill(NaN));
              landed.add(s.buffer);
              tileWriters.set(s.buffer, new Int32Array(s.size).fill(-1));
              break;
            }
            for (let t = 0; t < threads; t += 1) (locals[t] as Map<string, number[]>).set(s.buffer, new Array<number>(s.size));
            break;
          case 'BlockSync':
            for (const w of tileWriters.values()) w.fill(-1);
            break;
          case 'LoadStore':
            mask.forEach((m, t) => {
              if (!m) return;
              // A vector access of global memory is one aligned load or store of `width`
              // consecutive elements on the GPU: check that here too (the lanes below are
              // simulated one by one, which would hide a misaligned or overrunning vector).
              if (s.width > 1) {
                checkVectorAccess(s.in, t, s.width);
                checkVectorAccess(s.out, t, s.width);
              }
              // Both accesses' base index and bounds check once per thread (they do not depend on the lane).
              const src = buffer(s.in, t);
              const dst = buffer(s.out, t);
              for (let j = 0; j < s.width; j += 1) {
                checkTileRace(s.in, src.at + j, t, false);
                checkTileRace(s.out, dst.at + j, t, true);
                dst.data[dst.at + j] = round(src.data[src.at + j] as number, s.out.dtype);
              }
            });
            break;
          case 'Compute': {
            const where = (c: number, a: number, b: number): number => (c !== 0 ? a : b);
            const f = s.op.family === 'binary' ? BINARY[s.op.op] : s.op.family === 'unary' ? UNARY[s.op.op] : s.op.op === 'where' ? where : undefined;
            mask.forEach((m, t) => {
              if (!m) return;
              if (f === undefined) throw new Error(`simulator: op ${s.op.op} is not simulated`);
              const o = s.operands;
              const g = f as (...x: number[]) => number;
              // Unary, binary and where calls without an operand array per thread.
              const v = o.length === 1 ? g(read(o[0] as Operand, t)) : o.length === 2 ? g(read(o[0] as Operand, t), read(o[1] as Operand, t)) : o.length === 3 ? g(read(o[0] as Operand, t), read(o[1] as Operand, t), read(o[2] as Operand, t)) : g(...o.map((x) => read(x, t)));
              write(s.out, t, v);
            });
            break;
          }
          case 'Rng':
            // The reference evaluator's value for the statement's linear index (seeds below 2^53).
            mask.forEach((m, t) => {
              if (!m) return;
              const spec = {
                op: s.op,
                dtype: s.dtype as RngDtype,
                seed: BigInt(read(s.seed, t)),
                offset: BigInt(read(s.offset, t)),
                parameters: s.parameters.map((p) => read(p, t)),
              };
              write(s.out, t, rngValueAt(spec, ix(s.linearIndex, t)));
            });
            break;
          case 'IndexedLoad':
            // The kernel traps on an index outside [0, extent): the simulator throws.
            mask.forEach((m, t) => {
              if (!m) return;
              const extent = ix(s.extent, t);
              let i = read(s.index, t);
              if (s.wrapNegative && i < 0) i += extent;
              if (!Number.isInteger(i) || i < 0 || i >= extent) {
                throw new Error(`simulator: device trap: ${s.op} index ${read(s.index, t)} is out of bounds for size ${extent} (block ${block}, thread ${t})`);
              }
              const g = globals.get(s.lookup.tensor);
              if (g === undefined) throw new Error(`simulator: no global ${s.lookup.tensor}`);
              const at = ix(s.lookup.index, t) + i * ix(s.stride, t);
              if (at < 0 || at + s.width > g.values.length) throw new Error(`simulator: ${s.lookup.tensor}[${at}] out of bounds (${g.values.length})`);
              if (s.width === 1) {
                write(s.out, t, g.values[at] as number);
                return;
              }
              // A vector load: consecutive lookup elements (the lookup's innermost stride is 1).
              const dst = buffer(s.out, t);
              for (let k = 0; k < s.width; k += 1) dst.data[dst.at + k] = round(g.values[at + k] as number, s.out.dtype);
            });
            break;
          case 'Iota':
            mask.forEach((m, t) => {
              if (m) write(s.out, t, read(s.start, t) + ix(s.index, t) * read(s.step, t));
            });
            break;
          case 'ReductionInit':
            mask.forEach((m, t) => {
              if (m) write(s.out, t, literal(s.value.text));
            });
            break;
          case 'BlockReduce': {
            if (mask.some((m) => !m)) throw new Error('simulator: BlockReduce reached by part of the block (a deadlock on the GPU)');
            if (s.grouped !== undefined && s.allreduce !== true) throw new Error('simulator: a grouped BlockReduce must be an allreduce');
            if (s.lanes !== undefined && (s.allreduce === true || s.grouped !== undefined)) throw new Error('simulator: a BlockReduce of lanes is a plain block reduction');
            const x = s.reduceDims.includes('TIDx');
            const y = s.reduceDims.includes('TIDy');
            // A grouped allreduce is two reductions over the same threads and predicates; every
            // input is read before any output is written, as blockAllreduce2 does. Lanes are
            // reductions of adjacent elements (lane k at index + k), read before any is written.
            const lanes = Array.from({ length: s.lanes ?? 1 }, (_, k) => ({ out: laneAccess(s.out, k), in: laneAccess(s.in, k), op: s.op, init: s.init }));
            const parts = [...lanes, ...(s.grouped === undefined ? [] : [s.grouped])].map((r) => {
              const init = literal(r.init.text);
              const op = REDUCE[r.op] as (a: number, b: number) => number;
              const segs = new Map<number, number>();
              for (let t = 0; t < threads; t += 1) {
                const tx = t % bdx;
                const ty = Math.floor(t / bdx);
                const seg = (x ? 0 : tx) + (y ? 0 : ty * bdx);
                const v = indexFns.holds(s.readPredicates)(t) ? read(r.in, t) : init;
                segs.set(seg, op(segs.get(seg) ?? init, v));
              }
              return { out: r.out, op, segs };
            });
            for (const { out, op, segs } of parts) {
              for (let t = 0; t < threads; t += 1) {
                const tx = t % bdx;
                const ty = Math.floor(t / bdx);
                // An allreduce hands the result to every thread of the segment.
                if (s.allreduce !== true && ((x && tx !== 0) || (y && ty !== 0))) continue;
                if (!indexFns.holds(s.writePredicates)(t)) continue;
                const seg = (x ? 0 : tx) + (y ? 0 : ty * bdx);
                write(out, t, op(read(out, t), segs.get(seg) as number));
              }
            }
            break;
          }
          case 'GridReduce': {
            if (mask.some((m) => !m)) throw new Error('simulator: GridReduce reached by part of the block (a deadlock on the GPU)');
            const x = s.reduceDims.includes('TIDx');
            const y = s.reduceDims.includes('TIDy');
            const init = literal(s.init.text);
            const op = REDUCE[s.op] as (a: number, b: number) => number;
            const bx = block % launch.grid[0];
            const by = Math.floor(block / launch.grid[0]);
            const gdy = launch.grid[1];
            // Lanes (gridReduceLanes): every lane's partial is stored before the one arrival.
            const lanes = s.lanes ?? 1;
            for (let k = 0; k < lanes; k += 1) {
              const segs = new Map<number, number>();
              for (let t = 0; t < threads; t += 1) {
                const seg = (x ? 0 : t % bdx) + (y ? 0 : Math.floor(t / bdx) * bdx);
                const v = indexFns.holds(s.readPredicates)(t) ? read(laneAccess(s.in, k), t) : init;
                segs.set(seg, op(segs.get(seg) ?? init, v));
              }
              for (const [seg, v] of segs) {
                const key = `${s.pending}/${bx}/${seg}/${k}`;
                const row = gridPartials.get(key) ?? new Array<number | undefined>(gdy).fill(undefined);
                if (row[by] !== undefined) throw new Error(`simulator: grid reduction slot ${key}/${by} written twice in one launch`);
                row[by] = v;
                gridPartials.set(key, row);
              }
            }
            const n = (arrived.get(bx) ?? 0) + 1;
            const last = n === gdy;
            arrived.set(bx, last ? 0 : n);
            blockFlags.set(s.pending, last ? 0 : 1);
            if (!last) break;
            for (let k = 0; k < lanes; k += 1) {
              for (let t = 0; t < threads; t += 1) {
                const tx = t % bdx;
                const ty = Math.floor(t / bdx);
                if ((x && tx !== 0) || (y && ty !== 0)) continue;
                if (!indexFns.holds(s.writePredicates)(t)) continue;
                const seg = (x ? 0 : tx) + (y ? 0 : ty * bdx);
                const key = `${s.pending}/${bx}/${seg}/${k}`;
                const row = gridPartials.get(key) ?? [];
                if (row.includes(undefined)) throw new Error(`simulator: grid reduction row ${bx} is missing a partial`);
                write(laneAccess(s.out, k), t, op(read(laneAccess(s.out, k), t), row.reduce((a: number, b) => op(a, b as number), init)));
              }
            }
            for (const key of [...gridPartials.keys()].filter((key) => key.startsWith(`${s.pending}/${bx}/`))) gridPartials.delete(key);
            break;
          }
          case 'WelfordUpdate':
            mask.forEach((m, t) => {
              if (!m) return;
              const a: WelfordState = [read(s.out.avg, t), read(s.out.varSum, t), read(s.out.n, t)];
              const r = welfordCombine(a, [read(s.in.avg, t), read(s.in.varSum, t), read(s.in.n, t)]);
              write(s.out.avg, t, r[0]);
              write(s.out.varSum, t, r[1]);
              write(s.out.n, t, r[2]);
            });
            break;
          case 'BlockWelford':
          case 'GridWelford': {
            if (mask.some((m) => !m)) throw new Error(`simulator: ${s.kind} reached by part of the block (a deadlock on the GPU)`);
            const x = s.reduceDims.includes('TIDx');
            const y = s.reduceDims.includes('TIDy');
            const segOf = (t: number): number => (x ? 0 : t % bdx) + (y ? 0 : Math.floor(t / bdx) * bdx);
            const segs = new Map<number, WelfordState>();
            for (let t = 0; t < threads; t += 1) {
              const ok = indexFns.holds(s.readPredicates)(t);
              const v: WelfordState = ok ? [read(s.in.avg, t), read(s.in.varSum, t), read(s.in.n, t)] : EMPTY_STATE;
              segs.set(segOf(t), welfordCombine(segs.get(segOf(t)) ?? EMPTY_STATE, v));
            }
            let result = segs;
            if (s.kind === 'GridWelford') {
              const bx = block % launch.grid[0];
              const by = Math.floor(block / launch.grid[0]);
              const gdy = launch.grid[1];
              for (const [seg, v] of segs) {
                const key = `${bx}/${seg}`;
                const row = gridStates.get(key) ?? new Array<WelfordState | undefined>(gdy).fill(undefined);
                row[by] = v;
                gridStates.set(key, row);
              }
              const n = (arrived.get(bx) ?? 0) + 1;
              const last = n === gdy;
              arrived.set(bx, last ? 0 : n);
              blockFlags.set(s.pending, last ? 0 : 1);
              if (!last) break;
              result = new Map();
              for (const seg of segs.keys()) {
                const row = gridStates.get(`${bx}/${seg}`) ?? [];
                if (row.includes(undefined)) throw new Error(`simulator: grid welford row ${bx} is missing a partial`);
                result.set(seg, row.reduce((acc: WelfordState, b) => welfordCombine(acc, b as WelfordState), EMPTY_STATE));
              }
            }
            for (let t = 0; t < threads; t += 1) {
              const tx = t % bdx;
              const ty = Math.floor(t / bdx);
              if ((x && tx !== 0) || (y && ty !== 0)) continue;
              if (!indexFns.holds(s.writePredicates)(t)) continue;
              const a: WelfordState = [read(s.out.avg, t), read(s.out.varSum, t), read(s.out.n, t)];
              const r = welfordCombine(a, result.get(segOf(t)) as WelfordState);
              write(s.out.avg, t, r[0]);
              write(s.out.varSum, t, r[1]);
              write(s.out.n, t, r[2]);
            }
            break;
          }
          case 'GridOuterStore':
            mask.forEach((m, t) => {
              if (!m) return;
              const work = outerWork.get(s.work);
              const at = (block % launch.grid[0]) * ix(s.columns, t) + ix(s.column, t);
              if (work === undefined || at < 0 || at >= work.length) throw new Error(`simulator: ${s.work}[${at}] out of bounds`);
              work[at] = round(read(s.in, t), s.accDtype);
            });
            break;
          case 'GridOuterReduce': {
            // The grid barrier: the columns are combined once every block has arrived (the
            // blocks run one after another here; on the GPU each block takes a slice).
            if (mask.some((m) => !m)) throw new Error('simulator: GridOuterReduce reached by part of the block (a deadlock on the GPU)');
            outerArrived += 1;
            if (outerArrived < launch.grid[0] * launch.grid[1]) break;
            for (const r of s.reductions) {
              const work = outerWork.get(r.work);
              const out = globals.get(r.out);
              if (work === undefined || out === undefined) throw new Error(`simulator: no buffers for grid outer reduction ${r.work} → ${r.out}`);
              const columns = ix(r.columns, 0);
              const op = REDUCE[r.op] as (a: number, b: number) => number;
              for (let c = 0; c < columns; c += 1) {
                let acc = literal(r.init.text);
                for (let b = 0; b < launch.grid[0]; b += 1) {
                  const v = work[b * columns + c] as number;
                  // The buffer starts as NaN here: a partial never stored shows up.
                  if (Number.isNaN(v)) throw new Error(`simulator: ${r.work} has no partial of block ${b} for column ${c}`);
                  acc = round(op(acc, v), s.accDtype);
                }
                out.values[c] = round(acc, r.outDtype);
              }
            }
            break;
          }
          case 'ScalarCompute': {
            const vals = s.operands.map((o) => names.get(o.text) ?? literal(o.text));
            const where = (c: number, a: number, b: number): number => (c !== 0 ? a : b);
            const f = s.op.family === 'binary' ? BINARY[s.op.op] : s.op.family === 'unary' ? UNARY[s.op.op] : s.op.op === 'where' ? where : undefined;
            if (f === undefined) throw new Error(`simulator: scalar op ${s.op.op} is not simulated`);
            names.set(s.name, round((f as (...x: number[]) => number)(...vals), s.dtype));
            break;
          }
          case 'BulkLoadIssue':
            for (const c of s.copies) {
              shared.set(c.buffer, new Array<number>(c.capacity * (c.stages ?? 1)).fill(NaN));
              slotCapacity.set(c.buffer, c.capacity);
              for (let slot = 0; slot < (c.stages ?? 1); slot += 1) phases.set(slotKey(c.buffer, slot), 0);
            }
            if (blockHolds(s.predicates)) for (const c of s.copies) bulkCopy(c);
            for (const g of s.ahead ?? []) if (blockHolds(g.predicates)) for (const c of g.copies) bulkCopy(c);
            break;
          case 'BulkLoadReissue':
            // The copy lands whenever it lands: until the next wait, the buffer must not be read.
            if (blockHolds(s.predicates)) for (const c of s.copies) bulkCopy(c);
            break;
          case 'BulkLoadWait':
            if (!blockHolds(s.predicates)) break;
            for (const b of s.buffers) {
              const key = slotKey(b, s.stage === undefined ? 0 : ix(s.stage, 0));
              const done = phases.get(key);
              if (done === undefined) throw new Error(`simulator: wait for ${key} before its copy was issued`);
              // try_wait.parity returns once the phase of that parity is the last completed one; otherwise it never would.
              const parity = s.parity === undefined ? 0 : ix(s.parity, 0) % 2;
              if (done === 0 || (done - 1) % 2 !== parity) throw new Error(`simulator: wait for phase parity ${parity} of ${key} after ${done} copies would never return (block ${block})`);
              landed.add(key);
            }
            break;
          case 'PendingExpr':
            throw new Error(`simulator: ${s.kind} is not simulated`);
        }
      }
    };
    exec(kernel.body, new Array<boolean>(threads).fill(true));
  }
  return kernel.params.flatMap((p, i) => {
    const g = globals.get(p.name);
    if (g === undefined) return [];
    const given = args[i] as HostTensor;
    const values = Array.from(g.values, (v) => (p.dtype === 'Bool' ? v !== 0 : p.dtype === 'Int' ? BigInt(Number.isNaN(v) ? 0 : v) : v));
    if (!passedAsStorage(given)) return [HostTensor.fromValues(p.dtype, [...given.sizes], values)];
    // A strided argument comes back as a view of the same layout over the written storage.
    const storage = HostTensor.fromValues(p.dtype, [values.length], values);
    return [new HostTensor(p.dtype, [...given.sizes], [...given.strides], storage.data)];
  });
}

/**
 * A tensor the kernel sees as its storage and strides: a strided one, or one with an expanded
 * (stride-0) dim — also of extent 0, whose base the kernel still writes (a row sum expanded over
 * an empty dim: its contiguous element list would be empty).
 */
function passedAsStorage(t: HostTensor): boolean {
  return !t.isContiguous() || t.strides.some((stride, d) => stride === 0 && t.sizes[d] !== 1);
}
