// The error of a GEMM segment whose operand sizes PyTorch refuses (mat1 and mat2 shapes cannot
// be multiplied, …), found on the run's sizes: not a refusal (no other segment could compute
// such inputs) but the user's error, with PyTorch's message after the tensor's name.

import { MatmulShapeError } from '@tsfuser/fusion-ir';

/** Operand sizes torch.matmul / F.linear / torch._scaled_mm / torch._grouped_mm refuse, found on the run's inputs. */
export class GemmShapeError extends MatmulShapeError {
  override readonly name = 'GemmShapeError';
}
