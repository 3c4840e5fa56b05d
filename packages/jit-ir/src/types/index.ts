// Types: the JitType union, its printer and parser, and the scalar types.
export * from './jit-type.js';
export * from './scalar-type.js';
export * from './type-printer.js';
export * from './type-parser.js';
