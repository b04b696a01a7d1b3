// Thread shapes of the ecmul kernel, shared by the kernel, the GPU harness
// and the CPU emulation: how a block's threads split into items.
//
// An item takes n+1 lanes (one per channel, one for m_e). The block and tile
// mappings pack items across the block; the warp mapping keeps each item
// inside one warp: ⌊32/(n+1)⌋ items per warp, the last of them taking the
// lanes left over (they compute copies of its m_e lane), and a block that
// ends mid-warp holds as many whole items as its last threads allow. The
// spread mapping gives each item a whole warp, split into the warp
// mapping's ⌊32/(n+1)⌋ groups of lanes, each group computing other products
// of the same item; its blocks are whole warps. The mma mapping places 8
// items of 4 lanes in each warp as the warp mapping does, in whole warps.
// kernels.Kernel.Threads (entries.go) is the inverse of ecm_items_per_block.

#pragma once

#include <stdint.h>

#include "schedule_gen.cuh"

#if defined(__CUDACC__)
#define ECM_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define ECM_HOST_DEVICE inline
#endif

// The threads of a warp.
constexpr uint32_t kWarpLanes = 32;

// How a mapping places an item's threads: kernels.Kernel.ThreadShape, whose
// codes gen.go writes into schedule_gen.cuh.
enum EcmShape : uint32_t {
  ecm_packed = ECM_SHAPE_PACKED,
  ecm_warp = ECM_SHAPE_WARP,
  ecm_spread = ECM_SHAPE_SPREAD,
  ecm_warps = ECM_SHAPE_WARPS,  // the warp mapping's placement in blocks of whole warps only (mma)
};

// ecm_items_per_block returns the items a block of `threads` threads holds.
ECM_HOST_DEVICE constexpr uint32_t ecm_items_per_block(uint32_t threads, uint32_t lanes, uint32_t shape) {
  if (shape == ecm_packed) return threads / lanes;
  if (shape == ecm_spread) return threads / kWarpLanes;
  if (shape == ecm_warps) return threads / kWarpLanes * (kWarpLanes / lanes);
  const uint32_t perWarp = kWarpLanes / lanes, rest = threads % kWarpLanes / lanes;
  return threads / kWarpLanes * perWarp + (rest < perWarp ? rest : perWarp);
}

// ecm_locate returns the lane group of thread tid in its block (its item
// slot, but for the spread mapping, where a warp's groups share one item)
// and its lane in the group (lanes >= n+1 exist only in the last group of a
// warp, in the warp and spread mappings).
ECM_HOST_DEVICE void ecm_locate(uint32_t tid, uint32_t lanes, uint32_t shape, int& group, int& lane) {
  if (shape == ecm_packed) {
    group = int(tid / lanes);
    lane = int(tid % lanes);
    return;
  }
  const uint32_t perWarp = kWarpLanes / lanes, l = tid % kWarpLanes;
  const uint32_t s = l / lanes < perWarp ? l / lanes : perWarp - 1;
  group = int(tid / kWarpLanes * perWarp + s);
  lane = int(l - s * lanes);
}

// ecm_item returns the item slot of thread tid in its block, given its group.
ECM_HOST_DEVICE int ecm_item(uint32_t tid, uint32_t shape, int group) {
  return shape == ecm_spread ? int(tid / kWarpLanes) : group;
}
