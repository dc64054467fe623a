// The tiled kernels' operator: problem checks, JIT build through the
// runtime's kernel loader (memory cache, disk cache, NVRTC), and launches of
// the identity fill (when the epilogue reduces) and the GEMM on the caller's
// stream.
#include "providers/simt/tiled_operator.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "codegen/device_params.hpp"
#include "codegen/embedded_kernels.hpp"
#include "codegen/kernel_source.hpp"
#include "ir/names.hpp"
#include "runtime/cuda_objects.hpp"
#include "runtime/driver.hpp"
#include "runtime/kernel_cache.hpp"
#include "support/hash.hpp"

namespace epigemm::detail {
namespace {

using codegen::KernelTemplate;

OperatorMetadata tiled_metadata(const TiledKernel& k, int target_sm) {
  OperatorMetadata md;
  md.name = std::string(k.name);
  md.provider = std::string(k.provider);
  md.min_sm = k.min_sm;
  md.tile = {k.tile_m, k.tile_n, k.tile_k};
  md.stages = k.stages;
  md.extra["kernel"] = std::string(codegen::to_string(k.kind)) + "_gemm";
  md.extra["threads"] = std::to_string(k.threads);
  md.extra["target_sm"] = std::to_string(target_sm);
  md.extra["reduce_outputs"] = "f32";
  return md;
}

unsigned blocks(std::int64_t extent, std::int64_t tile, std::int64_t cap) {
  return static_cast<unsigned>(std::min((extent + tile - 1) / tile, cap));
}

bool has_reductions(const Problem& p) noexcept {
  for (const EpilogueOperand& out : p.outputs) {
    if (ir::is_reduce_store(out.store_kind)) return true;
  }
  return false;
}

}  // namespace

const TiledKernel& simt_kernel() noexcept {
  static const TiledKernel kernel{.kind = KernelTemplate::simt,
                                  .provider = "simt",
                                  .name = "simt_64x64x16",
                                  .gemm_entry = codegen::kSimtGemmKernel,
                                  .min_sm = DeviceChecks::kSimtMinSm,
                                  .threads = codegen::kSimtThreads,
                                  .tile_m = codegen::kSimtTileM,
                                  .tile_n = codegen::kSimtTileN,
                                  .tile_k = codegen::kSimtTileK,
                                  .stages = 1,
                                  .preference = -10};
  return kernel;
}

const TiledKernel& sm80_kernel() noexcept {
  static const TiledKernel kernel{.kind = KernelTemplate::sm80,
                                  .provider = "sm80",
                                  .name = "sm80_mma_128x128x32",
                                  .gemm_entry = codegen::kSm80GemmKernel,
                                  .min_sm = 80,
                                  .threads = codegen::kSm80Threads,
                                  .tile_m = codegen::kSm80TileM,
                                  .tile_n = codegen::kSm80TileN,
                                  .tile_k = codegen::kSm80TileK,
                                  .stages = codegen::kSm80Stages,
                                  .preference = -5};
  return kernel;
}

TiledOperator::TiledOperator(const TiledKernel& kernel, int target_sm)
    : OperatorImpl(tiled_metadata(kernel, target_sm)), kernel_(kernel), device_checks_(kernel.provider, kernel.min_sm) {}

Status TiledOperator::check_problem(const Problem& p) const {
  if (Status s = codegen::can_instantiate(p, kernel_.kind); !s) return s;
  for (const EpilogueOperand& out : p.outputs) {
    if (ir::is_reduce_store(out.store_kind) && out.dtype != DType::f32) {
      return Status::unsupported("reduction output '" + std::string(out.name) + "' is " +
                                 std::string(to_string(out.dtype)) +
                                 "; the " + std::string(kernel_.provider) + " provider reduces into f32 tensors only");
    }
  }
  const std::size_t bytes = sizeof(codegen::DeviceGemmArgs) + codegen::epilogue_params_size(p);
  if (bytes > kMaxArgumentBytes) {
    return Status::unsupported("the epilogue has " + std::to_string(p.inputs.size() + p.outputs.size()) +
                               " operands; the " + std::string(kernel_.provider) + " kernel's arguments hold at most " +
                               std::to_string((kMaxArgumentBytes - sizeof(codegen::DeviceGemmArgs)) /
                                              sizeof(codegen::DeviceOperand)));
  }
  return Status::ok();
}

Status TiledOperator::supports(const Problem& p) const {
  if (Status s = check_problem(p); !s) return s;
  return device_checks_.check(p);
}

Status TiledOperator::supports_problem(const Problem& p) const {
  if (Status s = check_problem(p); !s) return s;
  return device_checks_.check_tensors(p);
}

std::string TiledOperator::generated_source(const Problem& p) const {
  if (Status s = check_problem(p); !s) throw Error(ErrorKind::Unsupported, metadata().name + ": " + s.reason());
  return codegen::kernel_source(p, kernel_.kind);
}

int TiledOperator::preference(const Problem& problem) const {
  (void)problem;
  return kernel_.preference;
}

std::uint64_t TiledOperator::key_of(const Problem& p, int sm) const noexcept {
  return hash_combine(codegen::kernel_class_key(p, kernel_.kind, sm), static_cast<std::uint64_t>(p.device_index));
}

TiledOperator::Kernels TiledOperator::kernels_for(const Problem& p, int sm) {
  const std::uint64_t key = key_of(p, sm);
  {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
  }
  const runtime::Driver& driver = runtime::Driver::require();
  const runtime::LoadedKernel loaded =
      runtime::KernelLoader::instance().get(key, p.device_index, [this, &p, sm]() { return source_for(p, sm); });
  Kernels k;
  k.gemm = loaded.function;
  k.shared_bytes = codegen::dynamic_shared_bytes(p, kernel_.kind);
  if (k.shared_bytes > 48 * 1024) driver.set_max_dynamic_shared_memory(k.gemm, static_cast<int>(k.shared_bytes));
  driver.check(driver.module_get_function(&k.fill, loaded.module, codegen::kSimtFillKernel),
               "finding the identity-fill kernel");
  std::unique_lock<std::shared_mutex> lock(mutex_);
  kernels_.emplace(key, k);
  return k;
}

runtime::KernelSource TiledOperator::source_for(const Problem& p, int sm) const {
  runtime::KernelSource source;
  source.source = codegen::kernel_source(p, kernel_.kind);
  source.name_expression = std::string(kernel_.gemm_entry);
  source.arch = runtime::arch_name(sm);
  source.options = {"-std=c++17"};
  source.headers = codegen::embedded_kernel_files();
  source.file_name = "epigemm_" + std::string(kernel_.provider) + ".cu";
  return source;
}

PrecompileResult TiledOperator::precompile(const Problem& p) const {
  const int sm = std::stoi(metadata().extra.at("target_sm"));
  const bool cached = runtime::KernelLoader::instance().precompile(source_for(p, sm)).from_disk_cache;
  return {.kernels = 1, .compiled = cached ? 0 : 1};
}

void TiledOperator::compile(const Problem& p) {
  const runtime::Driver& driver = runtime::Driver::require();
  const runtime::ContextGuard guard(driver, p.device_index);
  kernels_for(p, driver.device_info(p.device_index).sm);
}

void TiledOperator::run(const Problem& p, void* stream) {
  const runtime::Driver& driver = runtime::Driver::require();
  const int device = p.device_index;
  // NOTE: with the device's primary context current (the usual case) the
  // guard costs one query and allocates nothing.
  const runtime::ContextGuard guard(driver, device);
  const Kernels k = kernels_for(p, driver.device_info(device).sm);

  // The kernel argument, EpgSimtArgs: EpgGemmArgs then EpgParams.
  alignas(16) std::byte arguments[kMaxArgumentBytes];
  const codegen::DeviceGemmArgs gemm = codegen::gemm_args(p);
  std::memcpy(arguments, &gemm, sizeof gemm);
  codegen::fill_epilogue_params(
      p, std::span<std::byte>(arguments + sizeof gemm, sizeof arguments - sizeof gemm));
  void* params[] = {arguments};

  runtime::LaunchConfig config;
  config.stream = static_cast<CUstream>(stream);
  if (has_reductions(p)) {
    config.block = {static_cast<unsigned>(codegen::kSimtThreads), 1, 1};
    config.grid = {blocks(p.L * std::max(p.M, p.N), codegen::kSimtThreads, 1 << 16), 1, 1};
    driver.launch(k.fill, config, params);
  }
  config.block = {static_cast<unsigned>(kernel_.threads), 1, 1};
  config.shared_bytes = k.shared_bytes;
  config.grid = {blocks(p.N, kernel_.tile_n, 0x7fffffff), blocks(p.M, kernel_.tile_m, 65535),
                 static_cast<unsigned>(std::min<std::int64_t>(p.L, 65535))};
  driver.launch(k.gemm, config, params);
}

}  // namespace epigemm::detail
