import { defineConfig } from 'tsup';
import { packageTsupConfig } from '../../tsup.shared.mjs';

// The CLI is a second entry; only the library's API gets declarations.
export default defineConfig(packageTsupConfig({ entry: ['src/index.ts', 'src/cli.ts'], dtsEntry: 'src/index.ts' }));
