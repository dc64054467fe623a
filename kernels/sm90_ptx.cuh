// Hopper (sm_90a) PTX wrappers: mbarriers, TMA bulk tensor copies, wgmma
// fences and descriptors, register reallocation, cluster helpers. Each is a
// short inline function; device-only and NVRTC-compatible (no standard headers).
#pragma once

namespace epigemm::sm90 {

using u16 = unsigned short;
using u32 = unsigned int;
using u64 = unsigned long long;

/// The driver's 128-byte tensor-map object (CUtensorMap), declared here because
/// <cuda.h> is not available under NVRTC. Encoded on the host with
/// cuTensorMapEncodeTiled and passed as a `const __grid_constant__` parameter.
struct alignas(64) CUtensorMap {
  u64 opaque[16];
};
static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap must be 128 bytes");

// ---------------------------------------------------------------- addresses

/// 32-bit shared-memory (shared::cta window) address of a generic pointer.
__device__ __forceinline__ u32 smem_addr(const void* p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}

// ---------------------------------------------------------------- threads

/// One lane of the (fully active) warp returns true.
__device__ __forceinline__ bool elect_one() {
  u32 pred = 0;
  asm volatile(
      "{\n.reg .b32 r;\n.reg .pred p;\nelect.sync r|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(pred));
  return pred != 0;
}

/// Lowers this warpgroup's register budget to kRegs (all 128 threads execute it).
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

/// Raises this warpgroup's register budget to kRegs (all 128 threads execute it).
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

/// Named barrier `id` over `count` threads (id 0 is __syncthreads).
__device__ __forceinline__ void named_barrier_sync(int id, int count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

/// Arrives on named barrier `id` (of `count` threads) without waiting.
__device__ __forceinline__ void named_barrier_arrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// ---------------------------------------------------------------- programmatic dependent launch

/// Waits until the grids this one depends on programmatically (the kernel
/// launched just before it, when it was launched with
/// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION) have completed and
/// their memory operations are visible to this grid. Per thread; returns at
/// once when there is no such grid.
__device__ __forceinline__ void grid_dependency_wait() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }

/// Lets the grid launched next as this one's programmatic dependent start
/// (once every CTA of this grid has executed it or exited); says nothing
/// about this grid's memory operations, which the dependent waits for with
/// grid_dependency_wait.
__device__ __forceinline__ void launch_dependent_grids() {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

// ---------------------------------------------------------------- flags between CTAs

/// Publishes `value` at `flag` after every memory write that precedes this
/// call in causality order (the caller's, and those of threads that met it
/// at a barrier before).
__device__ __forceinline__ void flag_release_gpu(unsigned* flag, unsigned value) {
  asm volatile("fence.acq_rel.gpu;\n\tst.relaxed.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}

/// A gpu-scope acquire load of a flag or counter.
__device__ __forceinline__ unsigned ld_acquire_gpu(const unsigned* flag) {
  unsigned seen;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(seen) : "l"(flag) : "memory");
  return seen;
}

/// Spins until `flag` holds `value`; what was written before its release is
/// then visible to the caller (and, after a barrier, to those it meets there).
__device__ __forceinline__ void flag_acquire_gpu(const unsigned* flag, unsigned value) {
  while (ld_acquire_gpu(flag) != value) __nanosleep(64);
}

/// Adds one to a counter after every memory write that precedes this call
/// in causality order (as flag_release_gpu).
__device__ __forceinline__ void counter_increment_release_gpu(unsigned* counter) {
  asm volatile("fence.acq_rel.gpu;\n\tred.relaxed.gpu.global.add.u32 [%0], 1;\n" ::"l"(counter) : "memory");
}

/// Spins until `counter` has reached `target` (compared modulo 2^32, so the
/// counter may wrap); what was written before the increments that got it
/// there is then visible to the caller.
__device__ __forceinline__ void counter_acquire_gpu(const unsigned* counter, unsigned target) {
  while (static_cast<int>(ld_acquire_gpu(counter) - target) < 0) __nanosleep(64);
}

/// A plain (relaxed, gpu-scope) store to a flag.
__device__ __forceinline__ void flag_store(unsigned* flag, unsigned value) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}

// ---------------------------------------------------------------- clusters

/// This CTA's rank inside its cluster.
__device__ __forceinline__ u32 cluster_ctarank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}

/// Arrive on the cluster-wide barrier (release semantics).
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
}

/// Wait on the cluster-wide barrier (acquire semantics).
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
}

/// Full cluster barrier: every thread of every CTA in the cluster.
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

/// Address of the same shared variable in CTA `rank` of the cluster.
__device__ __forceinline__ u32 map_to_cta(u32 local_addr, u32 rank) {
  u32 r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(local_addr), "r"(rank));
  return r;
}

// ---------------------------------------------------------------- mbarriers

/// Initialises an mbarrier expecting `count` arrivals per phase.
__device__ __forceinline__ void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}

/// Makes mbarrier initialisation visible to the cluster (and the async proxy).
__device__ __forceinline__ void fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/// Arrives once and adds `bytes` to the transaction count of the current phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

/// Arrives once on a local mbarrier.
__device__ __forceinline__ void mbar_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/// Arrives once on an mbarrier given by its shared::cluster address (any CTA).
/// NOTE: default (.cta) semantics on purpose: `.release.cluster` adds a
/// MEMBAR.ALL.GPU before every arrive, which stalls the consumer for a
/// microsecond per k-block. The data it guards is read by wgmma (async proxy)
/// and is complete once wgmma.wait_group returns.
__device__ __forceinline__ void mbar_arrive_cluster(u32 cluster_bar) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(cluster_bar) : "memory");
}

/// True once the phase with parity `parity` has completed.
__device__ __forceinline__ bool mbar_try_wait(u32 bar, u32 parity) {
  u32 ok;
  asm volatile(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok != 0;
}

/// Spins until the phase with parity `parity` has completed.
__device__ __forceinline__ void mbar_wait(u32 bar, u32 parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

// ---------------------------------------------------------------- TMA

/// Prefetches a tensor map (kernel parameter) into the descriptor cache.
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<u64>(map)) : "memory");
}

/// The L2 evict_first cache policy, for data read once: its lines then
/// replace each other rather than what L2 still holds (for reuse, or dirty
/// lines whose write-back would compete with the kernel's reads).
__device__ __forceinline__ u64 l2_evict_first_policy() {
  u64 policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}

/// 3-D tile load global -> shared (coordinates innermost first).
__device__ __forceinline__ void tma_load_3d(u32 dst, const CUtensorMap* map, u32 bar, int c0,
                                            int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

/// tma_load_3d under L2 cache policy `policy`, or without a hint when
/// `hinted` is false (an evict_normal policy is not the same as no hint:
/// it measured 2x slower on operands that every CTA re-reads).
__device__ __forceinline__ void tma_load_3d(u32 dst, const CUtensorMap* map, u32 bar, bool hinted,
                                            u64 policy, int c0, int c1, int c2) {
  if (!hinted) {
    tma_load_3d(dst, map, bar, c0, c1, c2);
    return;
  }
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%3, %4, %5}], [%2], %6;\n" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "l"(policy)
      : "memory");
}

/// 4-D tile load global -> shared (coordinates innermost first) under L2
/// policy `policy` when `hinted`.
__device__ __forceinline__ void tma_load_4d(u32 dst, const CUtensorMap* map, u32 bar, bool hinted, u64 policy,
                                            int c0, int c1, int c2, int c3) {
  if (!hinted) {
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(dst),
        "l"(reinterpret_cast<u64>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
        : "memory");
    return;
  }
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%3, %4, %5, %6}], [%2], %7;\n" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "l"(policy)
      : "memory");
}

/// 3-D tile load multicast to the CTAs in `mask`, under L2 policy `policy`
/// when `hinted`.
__device__ __forceinline__ void tma_load_3d_multicast(u32 dst, const CUtensorMap* map, u32 bar,
                                                      u16 mask, bool hinted, u64 policy, int c0, int c1,
                                                      int c2) {
  if (!hinted) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%4, %5, %6}], [%2], %3;\n" ::"r"(dst),
        "l"(reinterpret_cast<u64>(map)), "r"(bar), "h"(mask), "r"(c0), "r"(c1), "r"(c2)
        : "memory");
    return;
  }
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster.L2::cache_hint [%0], [%1, {%4, %5, %6}], [%2], %3, %7;\n" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(bar), "h"(mask), "r"(c0), "r"(c1), "r"(c2), "l"(policy)
      : "memory");
}

/// 3-D tile store shared -> global; out-of-bounds parts of the box are clipped.
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, u32 src, int c0, int c1,
                                             int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
          reinterpret_cast<u64>(map)),
      "r"(src), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

/// Closes the current group of bulk stores.
__device__ __forceinline__ void tma_store_commit() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/// Waits until at most kPending store groups still read shared memory.
template <int kPending>
__device__ __forceinline__ void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}

/// Waits until at most kPending store groups are incomplete (writes done).
template <int kPending>
__device__ __forceinline__ void tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}

/// Orders this thread's generic-proxy shared-memory writes before later
/// async-proxy (TMA, wgmma) accesses.
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// ---------------------------------------------------------------- wgmma

/// Orders register/shared accesses before the warpgroup's next wgmma.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

/// Closes the current group of wgmma operations.
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/// Waits until at most kPending wgmma groups are in flight.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

/// Tells the compiler that the accumulators may change here, so reads and
/// writes of them are not moved across wgmma issue/wait points.
template <int kN>
__device__ __forceinline__ void fence_regs(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
template <int kN>
__device__ __forceinline__ void fence_regs(int (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+r"(d[i])::"memory");
}

/// Shared-memory matrix descriptor for an operand tile swizzled across
/// kSwizzleBytes-wide rows (128 or 64).
/// K-major: rows of 128 bytes along K, 8-row atoms `sbo` bytes apart (lbo unused).
/// MN-major: chunks of one row's MN elements `lbo` bytes apart, 8-row K groups `sbo` apart.
template <int kSwizzleBytes>
__device__ __forceinline__ u64 make_desc_swizzled(u32 smem, u32 lbo, u32 sbo) {
  static_assert(kSwizzleBytes == 128 || kSwizzleBytes == 64, "the tiles swizzle 128- or 64-byte rows");
  u64 d = static_cast<u64>((smem & 0x3FFFF) >> 4);
  d |= static_cast<u64>((lbo & 0x3FFFF) >> 4) << 16;
  d |= static_cast<u64>((sbo & 0x3FFFF) >> 4) << 32;
  d |= (kSwizzleBytes == 128 ? 1ull : 2ull) << 62;  // swizzle mode 1: 128-byte, 2: 64-byte
  return d;
}
__device__ __forceinline__ u64 make_desc_sw128(u32 smem, u32 lbo, u32 sbo) {
  return make_desc_swizzled<128>(smem, lbo, sbo);
}

/// Moves a descriptor's start address by `bytes` (a multiple of 16). The
/// address field (bits 0-13) never carries out of the low word, so only that
/// word is added to: one 32-bit add instead of a 64-bit one.
__device__ __forceinline__ u64 desc_advance(u64 desc, u32 bytes) {
  const u32 lo = static_cast<u32>(desc) + (bytes >> 4);
  return (desc & 0xFFFFFFFF00000000ull) | lo;
}

// ---------------------------------------------------------------- shared stores

/// 4-byte shared store.
__device__ __forceinline__ void st_shared_b32(u32 addr, u32 v) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}

/// 2-byte shared store.
__device__ __forceinline__ void st_shared_b16(u32 addr, u16 v) {
  asm volatile("st.shared.b16 [%0], %1;\n" ::"r"(addr), "h"(v) : "memory");
}

/// 1-byte shared load (zero-extended).
__device__ __forceinline__ u32 ld_shared_u8(u32 addr) {
  u32 v;
  asm volatile("ld.shared.u8 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

/// 2-byte shared load.
__device__ __forceinline__ u16 ld_shared_b16(u32 addr) {
  u16 v;
  asm volatile("ld.shared.b16 %0, [%1];\n" : "=h"(v) : "r"(addr) : "memory");
  return v;
}

/// 4-byte shared load.
__device__ __forceinline__ u32 ld_shared_b32(u32 addr) {
  u32 v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

/// Stores four 8x8 b16 matrices: register i of lane t holds row t/4, columns
/// 2*(t%4), 2*(t%4)+1 of matrix i; lane 8i+r gives the address of row r of matrix i.
__device__ __forceinline__ void stmatrix_x4(u32 addr, u32 r0, u32 r1, u32 r2, u32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

/// stmatrix_x4 with each matrix transposed: lane 8i+r gives the address of
/// column r of matrix i, where its 8 rows go in turn.
__device__ __forceinline__ void stmatrix_x4_trans(u32 addr, u32 r0, u32 r1, u32 r2, u32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

/// ldmatrix_x4 of matrices stored transposed, the inverse of stmatrix_x4_trans.
__device__ __forceinline__ void ldmatrix_x4_trans(u32 addr, u32& r0, u32& r1, u32& r2, u32& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr)
               : "memory");
}

/// Loads four 8x8 b16 matrices, the inverse of stmatrix_x4: register i of
/// lane t receives row t/4, columns 2*(t%4), 2*(t%4)+1 of matrix i.
__device__ __forceinline__ void ldmatrix_x4(u32 addr, u32& r0, u32& r1, u32& r2, u32& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr)
               : "memory");
}

/// 16-byte shared load of four 32-bit words.
__device__ __forceinline__ void ld_shared_v4_b32(u32 addr, u32 (&w)[4]) {
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
               : "r"(addr)
               : "memory");
}

/// 8-byte shared load of two 32-bit words.
__device__ __forceinline__ void ld_shared_v2_b32(u32 addr, u32& a, u32& b) {
  asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n" : "=r"(a), "=r"(b) : "r"(addr) : "memory");
}

/// 8-byte shared store of two floats.
__device__ __forceinline__ void st_shared_v2_f32(u32 addr, float a, float b) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr), "f"(a), "f"(b) : "memory");
}

/// 8-byte shared store of two 32-bit words.
__device__ __forceinline__ void st_shared_v2_b32(u32 addr, u32 a, u32 b) {
  asm volatile("st.shared.v2.b32 [%0], {%1, %2};\n" ::"r"(addr), "r"(a), "r"(b) : "memory");
}

}  // namespace epigemm::sm90
