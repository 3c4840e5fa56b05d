import { describe, expect, it } from 'vitest';
import { packageName } from '../src/index.js';

describe('package', () => {
  it('exports its name', () => {
    expect(packageName.length).toBeGreaterThan(0);
  });
});
