// The operators of the tiled kernel templates (simt, sm80): one block per
// output tile, the epilogue applied per element in registers. supports()
// says whether the template can run a problem (and why not), compile()
// builds and loads the kernel for the problem's class, run() fills the
// kernel arguments on the stack and launches on the caller's stream: no
// allocation, synchronisation or file I/O once the class's kernel is loaded,
// so it can be captured in a graph.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <shared_mutex>
#include <string_view>
#include <unordered_map>

#include "api/operator_impl.hpp"
#include "codegen/kernel_source.hpp"
#include "providers/simt/simt_device_checks.hpp"
#include "runtime/kernel_cache.hpp"

namespace epigemm::detail {

/// One tiled kernel template and how its operator presents and launches it.
struct TiledKernel {
  codegen::KernelTemplate kind = codegen::KernelTemplate::simt;
  std::string_view provider;    ///< "simt", "sm80"
  std::string_view name;        ///< the operator's name
  std::string_view gemm_entry;  ///< the GEMM kernel's extern "C" name
  int min_sm = 70;
  int threads = 256;
  int tile_m = 64, tile_n = 64, tile_k = 16;
  int stages = 1;
  int preference = 0;  ///< below the sm90 operators; the fallback lowest
};

/// The simt template: CUDA cores, every dtype and layout; the fallback and the GPU-side oracle.
const TiledKernel& simt_kernel() noexcept;
/// The sm80 template: mma.sync tensor cores for f16/bf16, any layout and alignment.
const TiledKernel& sm80_kernel() noexcept;

class TiledOperator final : public OperatorImpl {
 public:
  /// The largest kernel argument: 96 bytes of GEMM arguments plus 40 per
  /// epilogue operand (CUDA passes up to 4 KB of parameters everywhere).
  static constexpr std::size_t kMaxArgumentBytes = 4096;

  TiledOperator(const TiledKernel& kernel, int target_sm);

  Status supports(const Problem& problem) const override;
  Status supports_problem(const Problem& problem) const override;
  void compile(const Problem& problem) override;
  /// The kernel for the architecture the operator was listed for.
  PrecompileResult precompile(const Problem& problem) const override;
  void run(const Problem& problem, void* stream) override;
  std::string generated_source(const Problem& problem) const override;
  int preference(const Problem& problem) const override;

 private:
  /// The two entry points of one compiled class.
  struct Kernels {
    CUfunction gemm = nullptr;
    CUfunction fill = nullptr;
    unsigned shared_bytes = 0;  ///< the GEMM's dynamic shared memory
  };

  /// The key of the problem's class on its device (no allocation).
  std::uint64_t key_of(const Problem& problem, int sm) const noexcept;
  /// The kernels for the problem's class, compiling and loading on a miss.
  Kernels kernels_for(const Problem& problem, int sm);
  /// What NVRTC compiles for the problem's class on an sm_`sm` GPU.
  runtime::KernelSource source_for(const Problem& problem, int sm) const;
  Status check_problem(const Problem& problem) const;

  const TiledKernel& kernel_;
  mutable DeviceChecks device_checks_;
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, Kernels> kernels_;
};

}  // namespace epigemm::detail
