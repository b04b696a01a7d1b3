// Thread shapes of the ecmul kernel, shared by the kernel, the GPU harness
// and the CPU emulation: how a block's threads split into items.
//
// An item takes n+1 lanes (one per channel, one for m_e). The block and tile
// mappings pack items across the block; the warp mapping keeps each item
// inside one warp: ⌊32/(n+1)⌋ items per warp, the last of them taking the
// lanes left over (they compute copies of its m_e lane), and a block that
// ends mid-warp holds as many whole items as its last threads allow.
// kernels.Kernel.Threads (entries.go) is the inverse of ecm_items_per_block.

#pragma once

#include <stdint.h>

#if defined(__CUDACC__)
#define ECM_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define ECM_HOST_DEVICE inline
#endif

// ecm_items_per_block returns the items a block of `threads` threads holds.
ECM_HOST_DEVICE constexpr uint32_t ecm_items_per_block(uint32_t threads, uint32_t lanes, bool warp) {
  if (!warp) return threads / lanes;
  const uint32_t perWarp = 32 / lanes, rest = threads % 32 / lanes;
  return threads / 32 * perWarp + (rest < perWarp ? rest : perWarp);
}

// ecm_locate returns the item slot of thread tid in its block and its lane
// in the item (lanes >= n+1 exist only in the warp mapping's last item of a warp).
ECM_HOST_DEVICE void ecm_locate(uint32_t tid, uint32_t lanes, bool warp, int& slot, int& lane) {
  if (!warp) {
    slot = int(tid / lanes);
    lane = int(tid % lanes);
    return;
  }
  const uint32_t perWarp = 32 / lanes, l = tid % 32;
  const uint32_t s = l / lanes < perWarp ? l / lanes : perWarp - 1;
  slot = int(tid / 32 * perWarp + s);
  lane = int(l - s * lanes);
}
