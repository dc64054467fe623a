// The simt operator: supports() says whether the simt kernel can run a
// problem (and why not), compile() builds and loads the kernel for the
// problem's class, run() fills the kernel arguments on the stack and
// launches on the caller's stream: no allocation, synchronisation or file
// I/O once the class's kernel is loaded, so it can be captured in a graph.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <shared_mutex>
#include <unordered_map>

#include "api/operator_impl.hpp"
#include "providers/simt/simt_device_checks.hpp"

namespace epigemm::detail {

class SimtOperator final : public OperatorImpl {
 public:
  /// The largest kernel argument: 96 bytes of GEMM arguments plus 40 per
  /// epilogue operand (CUDA passes up to 4 KB of parameters everywhere).
  static constexpr std::size_t kMaxArgumentBytes = 4096;

  explicit SimtOperator(int target_sm);

  Status supports(const Problem& problem) const override;
  void compile(const Problem& problem) override;
  void run(const Problem& problem, void* stream) override;
  std::string generated_source(const Problem& problem) const override;
  /// Below the tensor-core providers: simt is the fallback and the oracle.
  int preference(const Problem& problem) const override;

 private:
  /// The two entry points of one compiled class.
  struct Kernels {
    CUfunction gemm = nullptr;
    CUfunction fill = nullptr;
  };

  /// The key of the problem's class on its device (no allocation).
  std::uint64_t key_of(const Problem& problem, int sm) const noexcept;
  /// The kernels for the problem's class, compiling and loading on a miss.
  Kernels kernels_for(const Problem& problem, int sm);
  Status check_problem(const Problem& problem) const;

  mutable DeviceChecks device_checks_{"simt", DeviceChecks::kSimtMinSm};
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, Kernels> kernels_;
};

}  // namespace epigemm::detail
