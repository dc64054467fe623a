// The sm90 operator: one tile configuration of the Hopper GEMM with the
// fused epilogue. The kernel writes D row-major, or column-major on the
// `_dcol` tiles; a D of the other order runs as the transposed problem
// D^T = B^T A^T, mapped at every entry point.
// supports() gives the reason for everything it cannot run,
// compile() builds and loads the problem class's kernel, run() encodes tensor
// maps only when operands change and launches on the caller's stream: no
// allocation, synchronisation or file I/O once warm (graph-capturable). The
// allocations are stream-K's workspace, once per device and stream, on the
// first launch there that cuts tiles (not while the stream captures a graph:
// such a launch keeps its tiles whole), and a counter per device and stream
// for epilogues with few reduce outputs, which the GEMM then initialises
// itself (not while the stream captures: there the identity fill kernel
// runs first, as for larger ones). Launches on one stream share them, in
// stream order; a graph captured on a stream uses that stream's workspace,
// so it must not replay on another stream while that stream runs stream-K
// launches. A and B that TMA cannot read as they lie are repacked first
// (Sm90RepackSpace: a workspace per device and stream, grown on demand).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <utility>

#include "api/operator_impl.hpp"
#include "providers/simt/simt_device_checks.hpp"
#include "providers/sm90/sm90_plan.hpp"
#include "providers/sm90/sm90_repack.hpp"
#include "providers/sm90/sm90_tensor_maps.hpp"
#include "providers/sm90/sm90_tile_config.hpp"
#include "runtime/cuda_objects.hpp"

namespace epigemm::detail {

class Sm90Operator final : public OperatorImpl {
 public:
  /// Kernel parameters the launch may pass: three 128-byte tensor maps,
  /// GemmParams and the epilogue records (CUDA guarantees 4 KB everywhere).
  static constexpr std::size_t kMaxArgumentBytes = 4096;

  explicit Sm90Operator(const Sm90TileConfig& config);

  Status supports(const Problem& problem) const override;
  Status supports_problem(const Problem& problem) const override;
  void compile(const Problem& problem) override;
  /// The GEMM kernel, and the operand copy's where A or B is repacked.
  PrecompileResult precompile(const Problem& problem) const override;
  void run(const Problem& problem, void* stream) override;
  std::string generated_source(const Problem& problem) const override;
  std::vector<std::string> plan_notes(const Problem& problem) const override;
  /// The tile heuristic (sm90_preference): the best configuration for the
  /// problem's shape and the device's SM count ranks first.
  int preference(const Problem& problem) const override;
  /// The time the tile heuristic models (sm90_modelled_time), which orders
  /// the configurations of one operand class.
  std::string ranking(const Problem& problem) const override;

  const Sm90TileConfig& config() const noexcept { return config_; }
  /// Tensor-map encodings so far (they happen only when operands change).
  std::uint64_t tensor_map_encodings() const { return maps_.encodings(); }

 private:
  /// One loaded problem class: the GEMM, the identity fill (null when the
  /// epilogue does not reduce) and the most CTAs that are resident at once.
  struct Kernels {
    CUfunction gemm = nullptr;
    CUfunction fill = nullptr;
    unsigned max_ctas = 0;
    unsigned shared_bytes = 0;
  };

  Status check_device(const Problem& problem) const;
  /// The problem's plan (make_sm90_plan; throws Error(Unsupported) with its
  /// reason) with stream_k_code set for the problem's device.
  Sm90Plan launch_plan(const Problem& problem) const;
  std::uint64_t key_of(const Problem& problem, const Sm90Plan& plan) const noexcept;
  Kernels kernels_for(const Problem& problem, const Sm90Plan& plan);
  /// The plan whose kernel runs `plan`: its own when loaded, else a loaded
  /// one whose code covers it (stream-K's code, both kinds of tile), else
  /// its own (compiled on load). So a problem compiles a kernel without
  /// those parts only while no kernel with them is at hand.
  Sm90Plan loaded_superset(const Problem& problem, const Sm90Plan& plan) const;
  Kernels load(const Problem& problem, const Sm90Plan& plan, std::uint64_t key);
  /// The repack kernel for the problem's operand size (sm90_repack_kernel_build).
  CUfunction repack_kernel(const Problem& problem);
  /// Stream-K's workspace on one stream: its flags (zeroed when created) and
  /// partial sums, in one buffer.
  struct StreamKSpace {
    runtime::DeviceBuffer buffer;
    void* flags = nullptr;
    void* partials = nullptr;
  };
  /// The workspace for launches on `stream` of `device`; null when the stream
  /// captures a graph and has none yet, or the allocation fails (the launch
  /// then keeps its tiles whole).
  const StreamKSpace* stream_k_workspace(const runtime::Driver& driver, int device, CUstream stream);
  /// The counter the GEMM's first CTA raises once it has written the reduce
  /// outputs' identity (GemmParams::identity_flag; zeroed when created), and
  /// how many launches on its stream have raised it.
  struct IdentityCounter {
    runtime::DeviceBuffer buffer;
    unsigned launches = 0;
  };
  /// The counter for launches on `stream` of `device`, with identity_mutex_
  /// held; null when the stream captures a graph (a replay would wait for
  /// the target of the captured launch) or the allocation fails.
  IdentityCounter* identity_counter(const runtime::Driver& driver, int device, CUstream stream);

  Sm90TileConfig config_;
  mutable DeviceChecks device_checks_{"sm90", 90};
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, Kernels> kernels_;
  Sm90TensorMaps maps_;
  std::mutex workspace_mutex_;
  std::map<std::pair<int, CUstream>, StreamKSpace> workspaces_;
  /// Held from choosing a launch's identity target until it is launched, so
  /// that launches reach the stream in the order of their targets.
  std::mutex identity_mutex_;
  std::map<std::pair<int, CUstream>, IdentityCounter> identity_counters_;
  Sm90RepackSpace repack_space_;
};

}  // namespace epigemm::detail
