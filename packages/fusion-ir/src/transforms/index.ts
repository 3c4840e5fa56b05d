// Public API of the transforms module (re-exported from the package index).
export {};
