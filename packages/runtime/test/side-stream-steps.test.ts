// Which segments of a launch plan run on the side stream (src/executor/side-stream-steps.ts).
import { describe, expect, it } from 'vitest';
import { sideStreamSteps, type StepAccess } from '../src/executor/side-stream-steps.js';

const step = (readsBuffers: number[], writesBuffers: number[], gridSynchronizing = false): StepAccess => ({ readsBuffers, writesBuffers, gridSynchronizing });

describe('sideStreamSteps', () => {
  it('issue #785 pow + sum: the second of two independent segments goes on the side stream', () => {
    // reduction of t4 → out0; pointwise of t6 → out1 (both buffers are fusion outputs only).
    expect(sideStreamSteps([step([], [0]), step([], [1])])).toEqual([false, true]);
  });

  it('a chain stays on the main stream: a step reading a buffer, or one whose output is read later', () => {
    // reduction → buffer 0 → pointwise reads it (softmax split in two).
    expect(sideStreamSteps([step([], [0]), step([0], [1])])).toEqual([false, false]);
    // The first step feeds the third; the second is independent.
    expect(sideStreamSteps([step([], [0]), step([], [1]), step([0], [2])])).toEqual([false, true, false]);
    // The second step's output is read by the third: it must stay in order.
    expect(sideStreamSteps([step([], [0]), step([], [1]), step([1], [2])])).toEqual([false, false, false]);
  });

  it('two steps writing one buffer (a scatter copy, then the scatter kernel) stay in order on the main stream', () => {
    // An unrelated first step, then copy → buffer 1 and scatter → buffer 1.
    expect(sideStreamSteps([step([], [0]), step([], [1]), step([], [1])])).toEqual([false, false, false]);
  });

  it('the first step never goes on the side stream, and a single step neither', () => {
    expect(sideStreamSteps([step([], [0])])).toEqual([false]);
    expect(sideStreamSteps([step([], [0]), step([], [1]), step([], [2])])).toEqual([false, true, true]);
  });

  it('no side stream when any kernel synchronizes its grid (its blocks must all be resident)', () => {
    expect(sideStreamSteps([step([], [0]), step([], [1], true)])).toEqual([false, false]);
    expect(sideStreamSteps([step([], [0], true), step([], [1])])).toEqual([false, false]);
  });
});
