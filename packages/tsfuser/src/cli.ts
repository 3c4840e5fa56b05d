#!/usr/bin/env node
// The `tsfuser` command line: a thin shell over cli/main.ts.
import { main } from './cli/main.js';

process.exitCode = await main(process.argv.slice(2));
