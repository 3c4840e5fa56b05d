// The kernel simulator's index arithmetic (kernel-simulator.ts), compiled: each IndexExpr becomes a
// closure of the thread index once per simulation instead of being re-walked (and its names
// re-resolved) at every load, store and predicate of every thread. Invariant: a compiled closure
// computes exactly what the tree-walking evaluation did (integer add / mul, C-style truncating
// div and mod, each name resolved by `symbol` when the closure runs), so the simulator's checks
// are unchanged; the cache is keyed by the expression object (kernel IR is not mutated while it
// is simulated) and lives only as long as one simulateKernel call. Predicate conjunctions are
// compiled the same way, and each loop index is a slot its closures read (set while its loop runs,
// cleared after it, as the map of live loop indices was). A division by a fast divisor (Kernel
// .divisors) is computed as the device helper computes it, from the magic numbers the packer
// computes (divisor-magic.ts), and fails the simulation when its dividend is outside [0, 2^31).
import { fastQuotient, type DivisorMagic, type IndexExpr } from '../src/index.js';

/** A fast divisor of the simulated launch: its extent and the magic numbers the packer computes for it. */
export interface FastDivisor extends DivisorMagic {
  d: number;
}

/** An index expression's value for thread `tid` of the block being simulated. */
export type IndexFn = (tid: number) => number;

/** A predicate `index < extent` (the kernel IR's Predicate). */
export interface IndexBound {
  index: IndexExpr;
  extent: IndexExpr;
}

/** A loop index's value, read by the compiled closures; `live` while its loop runs. */
export interface LoopSlot {
  value: number;
  live: boolean;
}

/** One slot per loop index name, for one simulation. */
export class LoopSlots {
  private readonly slots = new Map<string, LoopSlot>();

  slot(name: string): LoopSlot {
    let s = this.slots.get(name);
    if (s === undefined) {
      s = { value: 0, live: false };
      this.slots.set(name, s);
    }
    return s;
  }

  /** No loop is running at the start of a block. */
  endBlock(): void {
    for (const s of this.slots.values()) s.live = false;
  }
}

export class IndexCompiler {
  private readonly cache = new Map<IndexExpr, IndexFn>();
  private readonly conjunctions = new Map<readonly IndexBound[], (tid: number) => boolean>();

  /**
   * `symbol(name)` gives the closure that reads `name` when called (threadIdx, loop index, …);
   * `fastDivisors`: the kernel's fast divisors by name (Kernel.divisors, with the magic numbers
   * the packer would pass for this launch), filled before the first expression is compiled.
   */
  constructor(
    private readonly symbol: (name: string) => IndexFn,
    private readonly fastDivisors: ReadonlyMap<string, FastDivisor> = new Map(),
  ) {}

  compile(e: IndexExpr): IndexFn {
    const hit = this.cache.get(e);
    if (hit !== undefined) return hit;
    const f = this.build(e);
    this.cache.set(e, f);
    return f;
  }

  /** Whether every `index < extent` of `bounds` holds for the thread (true for none). */
  holds(bounds: readonly IndexBound[]): (tid: number) => boolean {
    const hit = this.conjunctions.get(bounds);
    if (hit !== undefined) return hit;
    const pairs = bounds.map((b) => [this.compile(b.index), this.compile(b.extent)] as const);
    const f = (t: number): boolean => {
      for (const [index, extent] of pairs) if (!(index(t) < extent(t))) return false;
      return true;
    };
    this.conjunctions.set(bounds, f);
    return f;
  }

  private build(e: IndexExpr): IndexFn {
    switch (e.kind) {
      case 'const': {
        const v = e.value;
        return () => v;
      }
      case 'sym':
        return this.symbol(e.name);
      case 'add': {
        const a = this.compile(e.a);
        const b = this.compile(e.b);
        return (t) => a(t) + b(t);
      }
      case 'mul': {
        const a = this.compile(e.a);
        const b = this.compile(e.b);
        return (t) => a(t) * b(t);
      }
      case 'div': {
        const a = this.compile(e.a);
        const fast = e.b.kind === 'sym' ? this.fastDivisors.get(e.b.name) : undefined;
        // As the device helper computes it; fastQuotient throws for a dividend outside [0, 2^31).
        if (fast !== undefined) return (t) => fastQuotient(a(t), fast);
        const b = this.compile(e.b);
        return (t) => Math.trunc(a(t) / b(t));
      }
      case 'mod': {
        const a = this.compile(e.a);
        const fast = e.b.kind === 'sym' ? this.fastDivisors.get(e.b.name) : undefined;
        if (fast !== undefined) {
          return (t) => {
            const n = a(t);
            return n - fastQuotient(n, fast) * fast.d;
          };
        }
        const b = this.compile(e.b);
        return (t) => a(t) % b(t);
      }
      default: {
        const never: never = e;
        throw new Error(`simulator: unknown index expression ${JSON.stringify(never)}`);
      }
    }
  }
}
