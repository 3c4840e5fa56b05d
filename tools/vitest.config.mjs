// Tests of the repository tools (tools/test/*.test.mjs): plain Node modules, no workspace aliases.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: import.meta.dirname,
  test: {
    include: ['test/**/*.test.mjs'],
    testTimeout: 30_000,
  },
});
