// Public API of the printer module.
export * from './val-printer.js';
export * from './expr-printer.js';
export * from './fusion-printer.js';
export * from './golden.js';
