// Operators: one kernel configuration of one provider. get_operators returns
// those that support a problem; explain_operators also returns the rejected
// ones with the reason each gave.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "epigemm/error.hpp"
#include "epigemm/gemm.hpp"

namespace epigemm {

namespace detail {
class OperatorImpl;  // provider side (src/api/operator_impl.hpp)
}

struct TileShape {
  int m = 0, n = 0, k = 0;
};
struct ClusterShape {
  int m = 1, n = 1;
};

/// Describes an operator so users can filter and pin one.
struct OperatorMetadata {
  std::string name;      ///< unique, e.g. "sm90_wgmma_128x256x64_c2x1"
  std::string provider;  ///< "cpu_reference", "simt", "sm90", ...
  int min_sm = 0;        ///< 0 for host providers; else the lowest SM it runs on
  TileShape tile;
  ClusterShape cluster;
  int stages = 0;
  std::map<std::string, std::string> extra;  ///< provider-specific facts
};

/// Which operators to consider.
struct OperatorQuery {
  /// The GPU architecture to build for (90 for sm_90a, 80, ...). 0: the
  /// current CUDA device's, or none when there is no device.
  int target_sm = 0;
  /// Keep only operators for which this returns true (null keeps all).
  /// fp8 GEMMs accumulate precisely by default; keeping the operators whose
  /// extra["fp8_accumulation"] is "fast" picks Hopper's faster,
  /// reduced-precision fp8 accumulation instead.
  std::function<bool(const OperatorMetadata&)> metadata_filter{};
  /// Keep only these providers (empty keeps all).
  std::vector<std::string> providers{};
  /// Judge each operator on the problem alone, skipping the checks of this
  /// machine's devices (driver, device ordinal and SM version, where the
  /// pointers point): for tools that describe what a GPU of target_sm would
  /// run, on a machine without one (`epigemm list`, and the operators to
  /// precompile there). An operator found ok this way may still be unable
  /// to run here.
  bool ignore_devices = false;
  /// With ignore_devices: the described GPU's SM count and L2 size in
  /// bytes, which the sm90 ranking weighs (0: an H100's or H200's 132 SMs
  /// and the H200's 60 MB of L2). Without ignore_devices the ranking reads
  /// them from the device, and these must stay 0.
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
};

/// What Operator::precompile did.
struct PrecompileResult {
  int kernels = 0;   ///< kernels the problem's class needs (0 for host operators)
  int compiled = 0;  ///< of them, compiled now by NVRTC; the others were in the disk cache already
};

class Operator {
 public:
  explicit Operator(std::shared_ptr<detail::OperatorImpl> impl);

  const OperatorMetadata& metadata() const noexcept;
  const std::string& name() const noexcept { return metadata().name; }

  /// Validates the arguments (throws Error if malformed) and says whether
  /// this operator can run them, and if not why.
  Status supports(const GemmArguments& args) const;
  /// Prepares (e.g. JIT-compiles) the kernel for these arguments' class of
  /// problem. Throws Error if unsupported or if compilation fails.
  void compile(const GemmArguments& args);
  /// Compiles the kernels of these arguments' class of problem into the
  /// disk kernel cache without loading them, so it needs no GPU: the
  /// tensors may be CUDA views of memory nothing reads, as `epigemm emit`
  /// takes them. compile() or run() of the same class on a GPU of this
  /// operator's architecture, with the same CUDA toolkit and cache
  /// directory, then reads them from the cache. `sm_count` is the SM count
  /// of the GPU that will run them (0: the current device's, or 132, an
  /// H100's or H200's, without one): the sm90 kernels hold split-K code only
  /// where that GPU would cut K. Throws Error(Unsupported) where the
  /// operator cannot run the arguments (judged without this machine's
  /// devices), Error(Value) where the disk cache is disabled, and
  /// Error(Compile) where NVRTC fails.
  PrecompileResult precompile(const GemmArguments& args, int sm_count = 0) const;
  /// Runs on `stream` (a CUstream/cudaStream_t; ignored by host providers).
  /// Compiles on first use. Throws Error if unsupported.
  void run(const GemmArguments& args, void* stream = nullptr);
  /// The CUDA C++ source this operator compiles for these arguments (needs
  /// no GPU). Throws Error for host providers or problems the kernel cannot
  /// take.
  std::string generated_source(const GemmArguments& args) const;
  /// What a run of these arguments does besides the kernel's usual work,
  /// one sentence each (e.g. sm90 copying an A that TMA cannot read as it
  /// lies); empty when nothing. Needs no GPU. Throws Error for malformed
  /// arguments.
  std::vector<std::string> plan_notes(const GemmArguments& args) const;
  /// What this operator's place among the candidates for these arguments
  /// rests on, in a few words (sm90: the time its tile heuristic models and
  /// the model's largest term, e.g. "104.0 us modelled (L2 fill)"); empty
  /// where the provider ranks by a fixed order. Needs no GPU. Throws Error
  /// for malformed arguments.
  std::string ranking(const GemmArguments& args) const;

  const std::shared_ptr<detail::OperatorImpl>& impl() const noexcept { return impl_; }

 private:
  std::shared_ptr<detail::OperatorImpl> impl_;
};

/// Operators that support `args`, best first.
std::vector<Operator> get_operators(const GemmArguments& args, const OperatorQuery& query = {});

/// Every operator the query admits, with whether it supports `args` and why not.
struct OperatorCandidate {
  Operator op;
  Status status;
  /// Where the operator supports the problem, how it ranked it, in words
  /// (Operator::ranking, on the query's described GPU); else empty.
  std::string ranking;
};
std::vector<OperatorCandidate> explain_operators(const GemmArguments& args, const OperatorQuery& query = {});

/// The SM version of the current CUDA device (e.g. 90), or 0 without one.
int device_target_sm();

}  // namespace epigemm
