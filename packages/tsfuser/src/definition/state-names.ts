// Names of the states a record list defines (T0, S2, V5 …), recovered from the records alone so
// printers need no FusionDefinition: each record's op tells the kind of its outputs.
//
// Invariant: a state's name depends only on the records up to the one that defines it.

import { stateName } from './handles.js';
import { opByName } from './ops-table.js';
import { isStateRef, type FusionRecord, type RecordValue, type StateKind } from './records.js';

export class StateNames {
  private readonly kinds = new Map<number, StateKind>();

  constructor(records: readonly FusionRecord[]) {
    for (const r of records) {
      const kinds = this.outputKinds(r);
      r.outputs.forEach((index, i) => this.kinds.set(index, kinds[i] ?? 'tensor'));
    }
  }

  name(index: number): string {
    return stateName(this.kinds.get(index) ?? 'tensor', index);
  }

  kind(index: number): StateKind | undefined {
    return this.kinds.get(index);
  }

  private outputKinds(r: FusionRecord): StateKind[] {
    switch (r.op) {
      case 'defineTensor':
        return ['tensor'];
      case 'defineScalar':
        return ['scalar'];
      case 'defineVector':
        return ['vector'];
      case 'addOutput':
        return [];
      default: {
        const spec = opByName(r.op);
        const out = spec?.output ?? 'tensor';
        if (typeof out === 'number') return new Array<StateKind>(out).fill('tensor');
        if (out === 'pointwise') return [this.anyTensor(r.args) ? 'tensor' : 'scalar'];
        return [out];
      }
    }
  }

  private anyTensor(args: readonly RecordValue[]): boolean {
    return args.some((a) => isStateRef(a) && this.kinds.get(a.ref) === 'tensor');
  }
}
