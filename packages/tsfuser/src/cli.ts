#!/usr/bin/env node
// The `tsfuser` command line.
import { packageName } from './index.js';
process.stdout.write(`${packageName}\n`);
