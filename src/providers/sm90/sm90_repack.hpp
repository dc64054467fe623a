// The repack step of the sm90 operator (kernels/operand_repack.cuh): its
// kernel's source, its argument record and grid for a plan, and the
// workspace the copies go to.
// The workspace is one buffer per device and stream, grown when a launch
// needs more (after the stream's earlier work has finished with the old
// one), so a warm launch allocates nothing; a launch on a stream that
// captures a graph takes stream-ordered memory of its own instead, freed on
// the stream after the GEMM, so the graph owns it.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "providers/sm90/sm90_plan.hpp"
#include "runtime/cuda_objects.hpp"
#include "runtime/kernel_cache.hpp"

namespace epigemm::detail {

/// Same layout as EpgRepackOperand (kernels/operand_repack.cuh).
struct Sm90RepackOperandArgs {
  const void* src = nullptr;
  void* dst = nullptr;
  long long batches = 0, outer = 0, inner = 0;
  long long src_batch = 0, src_outer = 0, src_inner = 0;
  long long dst_pitch = 0, dst_batch = 0;
  int through_tiles = 0;
  int blocks = 0;
  int row_lanes = 1;
};
/// Same layout as EpgRepackArgs.
struct Sm90RepackArgs {
  Sm90RepackOperandArgs op[2];
};
static_assert(sizeof(Sm90RepackOperandArgs) == 96 && sizeof(Sm90RepackArgs) == 192,
              "Sm90RepackArgs must match EpgRepackArgs");

/// Threads per block of the repack kernel (kEpgRepackThreads), and the
/// elements per side of its shared-memory tiles (kEpgRepackTile); the
/// kernel's unit asserts that the kernel's agree.
inline constexpr int kSm90RepackThreads = 256;
inline constexpr int kSm90RepackTile = 64;

/// The repack kernel for operands of `element_bytes` (1, 2 or 4) bytes: a
/// module of its own, shared by every GEMM whose operands have that size
/// and built the first time one is repacked, so that the GEMM modules (most
/// of which never repack) do not compile it. It takes EpgRepackArgs
/// (Sm90RepackArgs) and kSm90RepackThreads-thread blocks.
runtime::KernelSource sm90_repack_kernel_build(int element_bytes);
/// Its KernelLoader key.
std::uint64_t sm90_repack_kernel_key(int element_bytes) noexcept;

/// The repack kernel's argument for `plan` with the workspace at
/// `workspace` (A's copy first, then B's); the grid is `blocks` blocks.
Sm90RepackArgs sm90_repack_args(const Sm90Plan& plan, void* workspace, unsigned& blocks) noexcept;

/// Per-stream workspaces for the copies.
class Sm90RepackSpace {
 public:
  /// The workspace of one launch; holds the space's lock until destroyed,
  /// which frees stream-ordered memory on the stream (after the launches
  /// that use it were enqueued).
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    void* data() const noexcept { return data_; }

   private:
    friend class Sm90RepackSpace;
    std::unique_lock<std::mutex> lock_;
    const runtime::Driver* driver_ = nullptr;
    CUstream stream_ = nullptr;
    void* data_ = nullptr;
    bool stream_ordered_ = false;
  };

  /// At least `bytes` of workspace for a launch on `stream` of `device`.
  /// Throws Error(ErrorKind::Cuda) when the memory cannot be had.
  Lease acquire(const runtime::Driver& driver, int device, CUstream stream, std::uint64_t bytes);

 private:
  std::mutex mutex_;
  std::map<std::pair<int, CUstream>, runtime::DeviceBuffer> buffers_;
};

}  // namespace epigemm::detail
