// The CLI's entry: dispatches `run`, `ir print` and `--help`, and turns every error into one
// line on stderr and an exit status (1 failure, 2 usage). `main` never calls process.exit, so
// tests call it directly and capture its output.

import { CodegenError, LoweringError } from '@tsfuser/codegen';
import { FusionIrError } from '@tsfuser/fusion-ir';
import { CompileError, CudaError, RuntimeUnavailableError } from '@tsfuser/device';
import { ExecutorInputError } from '@tsfuser/runtime';
import { SchedulingError } from '@tsfuser/scheduler';
import {
  AllocationLimitError,
  BackendUnavailableError,
  DefinitionError,
  DefinitionImportError,
  InputListError,
  InputMismatchError,
  formatImportError,
} from '../errors.js';
import { parseArgs } from './args.js';
import { processIo, UsageError, type CliIo } from './console.js';
import { BENCH_BOOLEAN_FLAGS, BENCH_VALUE_FLAGS, benchCommand } from './bench-command.js';
import { helpText } from './help.js';
import { irCommand } from './ir-command.js';
import { FUSE_BOOLEAN_FLAGS, FUSE_VALUE_FLAGS, fuseCommand } from './fuse-command.js';
import { RUN_BOOLEAN_FLAGS, RUN_VALUE_FLAGS, runCommand } from './run-command.js';
import { SaveOutputsError } from './save-outputs.js';
import { DefinitionSourceError } from './load-definition.js';
import { internalErrorLine } from './internal-error.js';

export async function main(argv: readonly string[], ioOverrides: Partial<CliIo> = {}): Promise<number> {
  const io: CliIo = { ...processIo(), ...ioOverrides };
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.stdout(helpText());
        return command === undefined ? 2 : 0;
      case 'run':
        return await runCommand(parseArgs(rest, RUN_VALUE_FLAGS, RUN_BOOLEAN_FLAGS), io);
      case 'bench':
        return await benchCommand(parseArgs(rest, BENCH_VALUE_FLAGS, BENCH_BOOLEAN_FLAGS), io);
      case 'ir':
        return irCommand(parseArgs(rest, [], []), io);
      case 'fuse':
        return fuseCommand(parseArgs(rest, FUSE_VALUE_FLAGS, FUSE_BOOLEAN_FLAGS), io);
      default:
        throw new UsageError(`unknown command '${command}' (see tsfuser --help)`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`tsfuser: ${e.message}\n`);
      return 2;
    }
    if (e instanceof DefinitionImportError) {
      io.stderr(`${formatImportError(argv[1] ?? '<input>', e)}\n`);
      return 1;
    }
    if (
      e instanceof InputMismatchError || e instanceof InputListError || e instanceof AllocationLimitError ||
      e instanceof DefinitionError || e instanceof FusionIrError || e instanceof BackendUnavailableError ||
      e instanceof SaveOutputsError || e instanceof DefinitionSourceError
    ) {
      io.stderr(`tsfuser: ${e.message}\n`);
      return 1;
    }
    // The GPU path's errors name their stage; a stack trace would only hide that.
    if (
      e instanceof SchedulingError || e instanceof LoweringError || e instanceof CodegenError || e instanceof ExecutorInputError ||
      e instanceof CompileError || e instanceof CudaError || e instanceof RuntimeUnavailableError
    ) {
      io.stderr(`tsfuser: ${e.name}: ${e.message}\n`);
      return 1;
    }
    io.stderr(`${internalErrorLine(e, process.env.TSFUSER_DEBUG === '1')}\n`);
    return 1;
  }
}
