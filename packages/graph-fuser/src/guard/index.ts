// guardFusionGroups: guard-fusion-groups.ts.
export { guardFusionGroups, guardFusionGroup, profiledConstant, CUDA_FUSION_GUARD } from './guard-fusion-groups.js';
