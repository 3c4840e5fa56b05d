#!/usr/bin/env node
// The `tsfuser` command line: a thin shell over cli/main.ts.
import { exitQuietlyOnBrokenPipe } from './cli/console.js';
import { main } from './cli/main.js';

exitQuietlyOnBrokenPipe(process.stdout, (code) => process.exit(code), (text) => process.stderr.write(text));

process.exitCode = await main(process.argv.slice(2));
