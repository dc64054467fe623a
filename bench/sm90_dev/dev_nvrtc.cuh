// NVRTC check of the sm90 GEMM header for the development harness: compiles
// one instantiation for sm_90a from the kernels/ directory (timed, optionally
// with --no-cache), loads the cubin and exposes the function for a launch.
#pragma once

#include <nvrtc.h>

#include <chrono>
#include <string>
#include <vector>

#include "dev_common.cuh"

namespace dev {

struct NvrtcKernel {
  bool ok = false;
  double compile_s = 0;
  size_t cubin_bytes = 0;
  std::string log;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
};

/// Compiles `name_expr` (a kernel template-id) from a source that includes
/// sm90_gemm.cuh, with -I kernels_dir -I cuda_include, and loads it.
inline NvrtcKernel nvrtc_build(const std::string& kernels_dir, const std::string& cuda_include,
                               const std::string& prelude, const std::string& name_expr,
                               bool no_cache) {
  NvrtcKernel k;
  const std::string src = "#include \"sm90_gemm.cuh\"\n" + prelude;
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, src.c_str(), "sm90_nvrtc_check.cu", 0, nullptr, nullptr) !=
      NVRTC_SUCCESS) {
    k.log = "nvrtcCreateProgram failed";
    return k;
  }
  nvrtcAddNameExpression(prog, name_expr.c_str());
  const std::string inc_k = "-I" + kernels_dir, inc_c = "-I" + cuda_include;
  std::vector<const char*> opts = {"--gpu-architecture=sm_90a", "-std=c++17", "-DNDEBUG",
                                   inc_k.c_str(), inc_c.c_str()};
  if (no_cache) opts.push_back("--no-cache");
  const auto t0 = std::chrono::steady_clock::now();
  const nvrtcResult r = nvrtcCompileProgram(prog, (int)opts.size(), opts.data());
  k.compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  k.log.resize(log_size);
  if (log_size) nvrtcGetProgramLog(prog, k.log.data());
  if (r != NVRTC_SUCCESS) {
    k.log = std::string(nvrtcGetErrorString(r)) + "\n" + k.log;
    nvrtcDestroyProgram(&prog);
    return k;
  }
  const char* lowered = nullptr;
  nvrtcGetLoweredName(prog, name_expr.c_str(), &lowered);
  const std::string lowered_name = lowered ? lowered : "";
  nvrtcGetCUBINSize(prog, &k.cubin_bytes);
  std::vector<char> cubin(k.cubin_bytes);
  nvrtcGetCUBIN(prog, cubin.data());
  nvrtcDestroyProgram(&prog);
  if (cuModuleLoadData(&k.module, cubin.data()) != CUDA_SUCCESS ||
      cuModuleGetFunction(&k.function, k.module, lowered_name.c_str()) != CUDA_SUCCESS) {
    k.log += "\nmodule load failed";
    return k;
  }
  k.ok = true;
  return k;
}

/// Launches an NVRTC-built gemm_kernel with its seven parameters (no staged
/// epilogue input or output: D's map stands in for theirs).
template <class Epi>
inline void nvrtc_launch(const NvrtcKernel& k, int smem_bytes, int threads, int grid, int cluster_m,
                         const sm90::CUtensorMap& ma, const sm90::CUtensorMap& mb,
                         const sm90::CUtensorMap& md, const sm90::GemmParams& p, const Epi& epi,
                         cudaStream_t stream) {
  DEV_CHECK_CU(cuFuncSetAttribute(k.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                  smem_bytes));
  CUlaunchConfig cfg{};
  cfg.gridDimX = grid;
  cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = threads;
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.sharedMemBytes = smem_bytes;
  cfg.hStream = stream;
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = cluster_m;
  attr.value.clusterDim.y = attr.value.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = cluster_m > 1 ? 1 : 0;
  void* args[] = {(void*)&ma, (void*)&mb, (void*)&md, (void*)&md, (void*)&md, (void*)&p, (void*)&epi};
  DEV_CHECK_CU(cuLaunchKernelEx(&cfg, k.function, args, nullptr));
}

}  // namespace dev
