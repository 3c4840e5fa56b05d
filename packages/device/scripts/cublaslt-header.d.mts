// Types of cublaslt-header.mjs (read by test/cublaslt-enums.test.ts).
export type Field = [type: string, declarator: string];
export function stripComments(text: string): string;
export function parseEnums(text: string, known?: Record<string, number>): { enumName: string; values: [string, number][] }[];
export function parseTypedefStruct(text: string, name: string): Field[] | null;
export function parsePlainStruct(text: string, name: string): Field[] | null;
export function parseConstexprValues(text: string): Record<string, number>;
export const WANTED_ENUMS: Record<string, string[]>;
export const WANTED_STRUCTS: string[];
