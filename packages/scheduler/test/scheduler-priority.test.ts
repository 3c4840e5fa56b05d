// The registry and the nvFuser acceptor set (--explain's comparison) derive their order from
// one list, schedulerPriority (nvFuser's order); the registry's two documented deviations are
// the only difference between the two orders.
import { describe, expect, it } from 'vitest';
import { defaultSchedulerRegistry, nvFuserAcceptors, registryPriority, schedulerPriority, type SchedulerType } from '../src/index.js';

const without = (order: readonly SchedulerType[], drop: readonly SchedulerType[]): SchedulerType[] => order.filter((t) => !drop.includes(t));

describe('scheduler priority', () => {
  it('every scheduler type is in the list once, expr_eval first, the kernel schedulers in nvFuser order', () => {
    expect(new Set(schedulerPriority).size).toBe(schedulerPriority.length);
    expect(schedulerPriority.length).toBe(defaultSchedulerRegistry().schedulers.length);
    // nvFuser's all_heuristics_in_priority_order restricted to the schedulers tsfuser has.
    expect(without(schedulerPriority, ['attention', 'greedy'])).toEqual([
      'expr_eval', 'no_op', 'matmul', 'reduction', 'transpose', 'pointwise', 'inner_persistent', 'outer_persistent', 'inner_outer_persistent',
    ]);
  });

  it('the nvFuser acceptors ask in schedulerPriority order (less transpose, which pointwise covers there)', () => {
    const acceptors = nvFuserAcceptors().acceptors.map((a) => a.type);
    expect(acceptors).toEqual(without(schedulerPriority, ['transpose']));
  });

  it('the default registry asks in registryPriority order, which is the list with no_op last and reduction after pointwise', () => {
    const registry = defaultSchedulerRegistry().schedulers.map((s) => s.type);
    expect(registry).toEqual(registryPriority());
    expect(new Set(registry)).toEqual(new Set(schedulerPriority));
    expect(registry[registry.length - 1]).toBe('no_op');
    expect(registry.indexOf('reduction')).toBe(registry.indexOf('pointwise') + 1);
    // Apart from those two moves the orders agree.
    expect(without(registry, ['no_op', 'reduction'])).toEqual(without(schedulerPriority, ['no_op', 'reduction']));
  });

  it('restrictedTo keeps the named schedulers in registry order, and refuses a set that keeps none', () => {
    const r = defaultSchedulerRegistry().restrictedTo(['no_op', 'pointwise']);
    expect(r.schedulers.map((s) => s.type)).toEqual(['pointwise', 'no_op']);
    expect(() => defaultSchedulerRegistry().restrictedTo([])).toThrow(/no registered scheduler/);
  });
});
