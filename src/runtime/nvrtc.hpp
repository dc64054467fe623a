// NVRTC: compiles CUDA C++ source held in memory to a cubin (or PTX) for one
// architecture, without a GPU. Headers are passed as (include name, contents)
// pairs; template kernels are found through name expressions. A failed
// compile throws Error(ErrorKind::Compile) with the whole log and the path of
// the dumped source.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace epigemm::runtime {

/// (include name, contents): what `#include "name"` resolves to inside NVRTC.
using HeaderFile = std::pair<std::string_view, std::string_view>;

/// Everything one compile needs.
struct CompileRequest {
  std::string_view source;
  std::string file_name = "epigemm_kernel.cu";  ///< shown in diagnostics
  /// Target: "sm_90a", "sm_80", ... gives a cubin; "compute_90a" gives PTX only.
  std::string arch = "sm_90a";
  /// Extra NVRTC options ("-std=c++17", "--no-cache", "-DNAME=1", ...).
  std::vector<std::string> options;
  /// Kernel names to resolve, e.g. "epigemm::gemm_kernel<128, 64>".
  std::vector<std::string> name_expressions;
  std::span<const HeaderFile> headers;
  bool want_ptx = false;  ///< also return the PTX (costs nothing extra)
};

/// What a successful compile produced.
struct CompileResult {
  std::string cubin;  ///< empty for a compute_XX (PTX-only) target
  std::string ptx;    ///< filled when requested, or for a compute_XX target
  std::vector<std::string> lowered_names;  ///< one per name expression, same order
  std::string log;    ///< warnings, if any
  double seconds = 0.0;  ///< wall time of nvrtcCompileProgram
};

/// NVRTC's version as major * 1000 + minor * 10 (13.0 -> 13000).
int nvrtc_version();

/// The NVRTC target name for a compute capability: 90 -> "sm_90a" (the
/// arch-specific variant that wgmma and setmaxnreg need), 80 -> "sm_80".
/// `arch_specific` false gives the portable name ("sm_90").
std::string arch_name(int sm, bool arch_specific = true);

/// "-I" options for the CUDA headers NVRTC needs (cuda_fp16.h, libcu++):
/// the toolkit include directory found at build time, or, when that is
/// gone, $CUDA_HOME/include, $CUDA_PATH/include or /usr/local/cuda/include;
/// plus its cccl/ subdirectory when present.
std::vector<std::string> cuda_include_options();

/// The options nvrtc_compile adds to every request besides the
/// architecture: cuda_include_options(), and -lineinfo when EPIGEMM_LINEINFO
/// is set. compile_cache_key hashes them.
std::vector<std::string> implicit_options();

/// Compiles. Adds --gpu-architecture and implicit_options() to the
/// request's options. Throws Error(ErrorKind::Compile) on failure, with the
/// full log and the path where the source (and log) were dumped:
/// EPIGEMM_DUMP_DIR if set, else a fresh temporary directory.
CompileResult nvrtc_compile(const CompileRequest& request);

}  // namespace epigemm::runtime
