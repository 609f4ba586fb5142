// TT-Metalium's topk.h (topk_tile_init, topk_local_sort, topk_merge,
// topk_rebuild) sorts and merges DST tiles by an LLK whose data layout
// (which values land in which DST tile, the index tiles' order, the phases
// of its bitonic network) is not documented, so tessel cannot compute what
// silicon computes. A kernel that includes it does not build.
#pragma once
#error "api/compute/topk.h is not supported by tessel: the top-k LLK's result layout (topk_local_sort, topk_merge, topk_rebuild) is not documented, so it is not modelled"
