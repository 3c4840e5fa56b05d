// Public API of the printer: nvFuser-format text for values, expressions and whole fusions,
// the legacy `%kernel {` layout, and the golden-file check the dump tests of every package use.
export { formatCppFloat, maxDigits10 } from './number-format.js';
export {
  binaryFunctionName,
  castFunctionName,
  inlineBinaryOpText,
  inlineUnaryOpString,
  reductionOpName,
  unaryFunctionName,
} from './op-names.js';
export {
  binaryText,
  constantToString,
  dtypeName,
  iterDomainToString,
  scalarExprInline,
  scalarToInlineString,
  scalarToString,
  tensorDomainToString,
  tensorViewToString,
  unaryText,
  valDtype,
  valToInlineString,
  valToString,
} from './val-printer.js';
export { exprToInlineString, exprToString, indentation, isTensorExpr } from './expr-printer.js';
export { idExprsBetween, usedTensorViews } from './traversal.js';
export {
  contiguityString,
  ioLine,
  printFusion,
  printInputsOutputs,
  printMath,
  printTensorTransforms,
  printTransforms,
  type PrintFusionOptions,
} from './fusion-printer.js';
export { printKernelLegacy } from './legacy-printer.js';
export { checkGolden, lineDiff, type GoldenCheck } from './golden.js';
