// The executor cache's two keys. The layout key (sizes, strides, pointer alignment class of each
// tensor argument; the value of each integral scalar, which may be a size) selects a ready launch
// plan; the signature key (dtype, which dims are 0 / 1 / other, stride order, alignment class;
// an integral scalar's value class) selects a segmentation, as nvFuser's input signature does.
// Invariant: equal layout keys mean equal launch plans; equal signature keys mean the same
// segmentation is valid (the heuristics may still differ by size).

import type { Fusion } from '@tsfuser/fusion-ir';
import type { RuntimeInfo } from '@tsfuser/scheduler';
import { Tensor } from '@tsfuser/device';
import { isIntegralScalar, pointerAlignment, type ExecutorArgument } from './runtime-info.js';

function stableOrderKey(strides: readonly number[]): string {
  return strides
    .map((s, d) => [s, d] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .map(([, d]) => d)
    .join('');
}

/** The launch-plan key of `args` for `fusion`'s inputs. */
export function layoutKey(fusion: Fusion, args: readonly ExecutorArgument[]): string {
  let key = '';
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i];
    const v = fusion.inputs[i];
    if (a instanceof Tensor) key += `${a.sizes.join(',')}/${a.strides.join(',')}/${Math.min(16, pointerAlignment(a.dataPtr))};`;
    // An integral scalar may be a size (a dynamic reshape): its value shapes the launch.
    else if (v !== undefined && v.kind === 'scalar' && isIntegralScalar(v.dtype)) key += `${typeof a}=${String(a)};`;
    else key += `${typeof a};`;
  }
  return key;
}

/**
 * The last call's arguments and their layout key: a call that passes the same argument objects
 * again (a Tensor's sizes, strides and pointer never change; scalars compare by value) reuses
 * the key instead of building the string again — the common case of a loop over fixed inputs.
 */
export class LayoutKeyMemo {
  private args: readonly ExecutorArgument[] = [];
  private key = '';

  constructor(private readonly fusion: Fusion) {}

  keyOf(args: readonly ExecutorArgument[]): string {
    const last = this.args;
    let same = last.length === args.length && last.length > 0;
    for (let i = 0; same && i < args.length; i += 1) same = Object.is(args[i], last[i]);
    if (same) return this.key;
    this.key = layoutKey(this.fusion, args);
    this.args = [...args];
    return this.key;
  }
}

/** The segmentation key of a call's runtime info. */
export function signatureKey(info: RuntimeInfo): string {
  return info.inputs
    .map((inp) =>
      inp.kind === 'tensor'
        ? `${inp.dtype}[${inp.sizes.map((s) => (s === 1 ? '1' : s === 0 ? '0' : 'n')).join(',')}]o${stableOrderKey(inp.strides)}a${Math.min(16, inp.alignment)}`
        : // One concretization per class of an integral scalar's value (0, 1, other), not per value.
          `${inp.dtype}${inp.value === undefined ? '' : inp.value === 0 ? '=0' : inp.value === 1 ? '=1' : '=n'}`,
    )
    .join(';');
}
