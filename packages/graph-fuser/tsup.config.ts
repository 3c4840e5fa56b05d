import { defineConfig } from 'tsup';
import { packageTsupConfig } from '../../tsup.shared.mjs';

export default defineConfig(packageTsupConfig());
