// The sm90 operator: problem and device checks (a D of the other order than
// its tile writes runs as the transposed problem), JIT build through the
// runtime's kernel loader, the persistent grid size, stream-K's workspace, and
// the launches of the GEMM (a programmatic dependent of the stream's previous
// kernel) and, when the epilogue's reduce outputs are too large for the GEMM
// to initialise itself (or the stream captures a graph), the identity fill
// before it (which the GEMM's main loop overlaps).
#include "providers/sm90/sm90_operator.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <span>

#include "codegen/device_params.hpp"
#include "codegen/kernel_source.hpp"
#include "ir/names.hpp"
#include "providers/sm90/sm90_kernel_source.hpp"
#include "runtime/cuda_objects.hpp"
#include "runtime/kernel_cache.hpp"
#include "support/hash.hpp"

namespace epigemm::detail {
namespace {

constexpr std::size_t kMapBytes = sizeof(Sm90Maps);  ///< the kernel's tensor-map parameters

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::string cuda_name(int device) { return "cuda:" + std::to_string(device); }

/// A per-stream workspace of `bytes` on `device` whose first `zeroed` bytes
/// (a multiple of 4) are zeroed on `stream`; empty (null data()) when the
/// allocation fails: out of memory, or another thread captures a graph.
runtime::DeviceBuffer zeroed_workspace(const runtime::Driver& driver, int device, CUstream stream, std::size_t bytes,
                                       std::size_t zeroed, const char* what) {
  runtime::DeviceBuffer buffer;
  try {
    buffer = runtime::DeviceBuffer(driver, device, bytes);
  } catch (const Error&) {
    return buffer;
  }
  driver.check(driver.memset_d32_async(buffer.address(), 0, zeroed / 4, stream), what);
  return buffer;
}

// The device's properties, or nullptr where no device can be asked.
const runtime::DeviceInfo* device_info_of(int device) {
  const runtime::Driver* driver = runtime::Driver::get();
  if (driver == nullptr || device < 0 || device >= driver->device_count()) return nullptr;
  return &driver->device_info(device);
}

int sm_count_of(int device) {
  const runtime::DeviceInfo* info = device_info_of(device);
  return info != nullptr ? info->sm_count : kSm90DefaultSmCount;
}

std::int64_t l2_bytes_of(int device) {
  const runtime::DeviceInfo* info = device_info_of(device);
  return info != nullptr && info->l2_bytes > 0 ? info->l2_bytes : kSm90DefaultL2Bytes;
}

// The described GPU's figures where a tool gives them, else the device's.
int sm_count_for(const Problem& p) {
  return p.described_sm_count > 0 ? p.described_sm_count : sm_count_of(p.device_index);
}

std::int64_t l2_bytes_for(const Problem& p) {
  return p.described_l2_bytes > 0 ? p.described_l2_bytes : l2_bytes_of(p.device_index);
}

// The problem the kernel runs: `p`, or where D lies the other way from
// the way the tile writes it (`d_column_major`) its transpose D^T = B^T
// A^T, held per thread so that warm launches allocate nothing. Every entry
// point maps its problem once; the transpose maps to itself.
const Problem& oriented(const Problem& p, bool d_column_major) {
  if (!(d_column_major ? transposes_to_column_major_d(p) : transposes_to_row_major_d(p))) return p;
  thread_local Problem transposed;
  transpose_problem(p, transposed);
  return transposed;
}

}  // namespace

Sm90Operator::Sm90Operator(const Sm90TileConfig& config)
    : OperatorImpl(sm90_metadata(config)), config_(config), maps_(config) {}

Status Sm90Operator::supports(const Problem& problem) const {
  const Problem& p = oriented(problem, config_.d_column_major);
  if (Status s = supports_problem(p); !s) return s;
  return check_device(p);
}

Status Sm90Operator::supports_problem(const Problem& problem) const {
  const Problem& p = oriented(problem, config_.d_column_major);
  if (p.device != Device::cuda) return Status::unsupported("A is a host tensor; the sm90 provider needs CUDA tensors");
  Sm90Plan plan;
  if (Status s = make_sm90_plan(p, config_, plan); !s) return s;
  const std::size_t bytes = kMapBytes + sizeof(Sm90GemmParams) + codegen::epilogue_params_size(p);
  if (bytes > kMaxArgumentBytes) {
    return Status::unsupported("the epilogue has " + std::to_string(p.inputs.size() + p.outputs.size()) +
                               " operands; the sm90 kernel's arguments hold at most " +
                               std::to_string((kMaxArgumentBytes - kMapBytes - sizeof(Sm90GemmParams)) /
                                              sizeof(codegen::DeviceOperand)));
  }
  return device_checks_.check_tensors(p);
}

Sm90Plan Sm90Operator::launch_plan(const Problem& p) const {
  Sm90Plan plan;
  if (Status s = make_sm90_plan(p, config_, plan); !s) throw Error(ErrorKind::Unsupported, metadata().name + ": " + s.reason());
  plan.stream_k_code = sm90_stream_k_code(config_, p, sm_count_for(p));
  return plan;
}

std::string Sm90Operator::generated_source(const Problem& problem) const {
  const Problem& p = oriented(problem, config_.d_column_major);
  return sm90_kernel_source(p, launch_plan(p), config_);
}

std::vector<std::string> Sm90Operator::plan_notes(const Problem& problem) const {
  const Problem& p = oriented(problem, config_.d_column_major);
  Sm90Plan plan;
  if (!make_sm90_plan(p, config_, plan)) return {};
  std::vector<std::string> notes = sm90_plan_notes(p, plan, config_.operands);
  if (&p != &problem) {
    notes.insert(notes.begin(), config_.d_column_major
                                    ? "D is row-major: the kernel writes the column-major D^T = B^T A^T, whose A "
                                      "and B are B^T and A^T (as in the notes that follow)"
                                    : "D is column-major: the kernel writes the row-major D^T = B^T A^T, whose A "
                                      "and B are B^T and A^T (as in the notes that follow)");
  }
  // How K is cut on the device's SMs (a 2x1 cluster's count of CTAs is
  // known only once its kernel is loaded).
  if (config_.cluster_m > 1) return notes;
  const int sms = sm_count_for(p);
  const Sm90KCut cut = sm90_k_cut(config_, p, sms);
  const std::string tiles = std::to_string(sm90_cluster_tiles(config_, p.M, p.N, p.L));
  const std::string on = " (on " + std::to_string(sms) + " SMs; not while the stream captures a graph)";
  if (cut.slices > 1) {
    notes.push_back("split-K: each of the " + tiles + " tiles runs on " + std::to_string(cut.slices) +
                    " CTAs, one per slice of K" + on);
  } else if (cut.sk_tiles > 0) {
    notes.push_back("stream-K: the last " + std::to_string(cut.sk_tiles) + " of the " + tiles +
                    " tiles are cut along K into one range per CTA" + on);
  }
  return notes;
}

Status Sm90Operator::check_device(const Problem& p) const {
  Status why = Status::ok();
  const runtime::Driver* driver = runtime::Driver::get(&why);
  if (driver == nullptr) return Status::unsupported("the sm90 provider cannot run here: " + why.reason());
  const int device = p.device_index;
  if (device >= 0 && device < driver->device_count()) {
    const int sm = driver->device_info(device).sm;
    if (sm != 90) {
      return Status::unsupported(cuda_name(device) + " is sm_" + std::to_string(sm) +
                                 "; the sm90 kernels need an sm_90 (Hopper) GPU");
    }
  }
  // Device ordinal, current context and pointer kinds (supports_problem
  // checked the element alignment).
  return device_checks_.check_machine(p);
}

int Sm90Operator::preference(const Problem& problem) const {
  const Problem& p = oriented(problem, config_.d_column_major);
  return sm90_preference(config_, p, sm_count_for(p), l2_bytes_for(p));
}

std::string Sm90Operator::ranking(const Problem& problem) const {
  const Problem& p = oriented(problem, config_.d_column_major);
  Sm90ModelBound bound = Sm90ModelBound::math;
  const double us =
      sm90_modelled_time(config_, p, sm_count_for(p), l2_bytes_for(p), &bound) / 1000.0;
  char text[64];
  std::snprintf(text, sizeof text, "%.1f us modelled (%s)", us, sm90_model_bound_name(bound));
  return config_.accumulates_fp8_fast() ? std::string(text) + ", after precise fp8" : std::string(text);
}

std::uint64_t Sm90Operator::key_of(const Problem& p, const Sm90Plan& plan) const noexcept {
  return hash_combine(sm90_kernel_key(p, plan, config_), static_cast<std::uint64_t>(p.device_index));
}

Sm90Operator::Kernels Sm90Operator::kernels_for(const Problem& p, const Sm90Plan& plan) {
  const std::uint64_t key = key_of(p, plan);
  {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
  }
  const Sm90Plan source_plan = loaded_superset(p, plan);
  const Kernels k = load(p, source_plan, key_of(p, source_plan));
  std::unique_lock<std::shared_mutex> lock(mutex_);
  kernels_.emplace(key, k);
  return k;
}

Sm90Plan Sm90Operator::loaded_superset(const Problem& p, const Sm90Plan& plan) const {
  const runtime::KernelLoader& loader = runtime::KernelLoader::instance();
  if (loader.find(key_of(p, plan), p.device_index)) return plan;
  Sm90Plan wider[3] = {plan, plan, plan};
  wider[0].tile_kinds = wider[2].tile_kinds = kSm90AllTileKinds;
  wider[1].stream_k_code = wider[2].stream_k_code = true;
  for (const Sm90Plan& w : wider) {
    if (w.tile_kinds == plan.tile_kinds && w.stream_k_code == plan.stream_k_code) continue;
    if (loader.find(key_of(p, w), p.device_index)) return w;
  }
  return plan;
}

Sm90Operator::Kernels Sm90Operator::load(const Problem& p, const Sm90Plan& plan, std::uint64_t key) {
  const runtime::Driver& driver = runtime::Driver::require();
  const Sm90TileConfig config = config_;
  const runtime::LoadedKernel loaded = runtime::KernelLoader::instance().get(
      key, p.device_index, [&p, &plan, &config]() { return sm90_kernel_build(p, plan, config); });
  Kernels k;
  k.gemm = loaded.function;
  k.shared_bytes = static_cast<unsigned>(config_.shared_bytes(static_cast<int>(size_bytes(plan.d_dtype))));
  for (const EpilogueOperand& out : p.outputs) {
    if (ir::is_reduce_store(out.store_kind) && k.fill == nullptr) {
      driver.check(driver.module_get_function(&k.fill, loaded.module, kSm90FillKernel),
                   "finding the sm90 identity-fill kernel");
    }
  }
  // Persistent grid: at most one CTA per SM, in whole clusters that fit together.
  const int sms = driver.device_info(p.device_index).sm_count;
  if (config_.cluster_m == 1) {
    k.max_ctas = static_cast<unsigned>(sms);
  } else {
    CUlaunchAttribute attribute{};
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = static_cast<unsigned>(config_.cluster_m);
    attribute.value.clusterDim.y = attribute.value.clusterDim.z = 1;
    CUlaunchConfig launch{};
    launch.gridDimX = static_cast<unsigned>(sms / config_.cluster_m * config_.cluster_m);
    launch.gridDimY = launch.gridDimZ = 1;
    launch.blockDimX = static_cast<unsigned>(config_.threads());
    launch.blockDimY = launch.blockDimZ = 1;
    launch.sharedMemBytes = k.shared_bytes;
    launch.attrs = &attribute;
    launch.numAttrs = 1;
    int clusters = 0;
    driver.check(driver.occupancy_max_active_clusters(&clusters, k.gemm, &launch),
                 "asking how many sm90 clusters fit on the device");
    if (clusters <= 0) {
      throw Error(ErrorKind::Cuda, "no " + std::to_string(config_.cluster_m) + "x1 cluster of the sm90 kernel fits on " +
                                       cuda_name(p.device_index));
    }
    k.max_ctas = static_cast<unsigned>(clusters * config_.cluster_m);
  }
  return k;
}

void Sm90Operator::compile(const Problem& problem) {
  const Problem& p = oriented(problem, config_.d_column_major);
  const Sm90Plan plan = launch_plan(p);
  const runtime::Driver& driver = runtime::Driver::require();
  const runtime::ContextGuard guard(driver, p.device_index);
  kernels_for(p, plan);
  if (sm90_repack_bytes(plan) > 0) repack_kernel(p);
}

PrecompileResult Sm90Operator::precompile(const Problem& problem) const {
  const Problem& p = oriented(problem, config_.d_column_major);
  const Sm90Plan plan = launch_plan(p);
  PrecompileResult result;
  const auto store = [&result](const runtime::KernelSource& source) {
    ++result.kernels;
    if (!runtime::KernelLoader::instance().precompile(source).from_disk_cache) ++result.compiled;
  };
  store(sm90_kernel_build(p, plan, config_));
  if (sm90_repack_bytes(plan) > 0) store(sm90_repack_kernel_build(static_cast<int>(size_bytes(p.A.dtype))));
  return result;
}

CUfunction Sm90Operator::repack_kernel(const Problem& p) {
  const int bytes = static_cast<int>(size_bytes(p.A.dtype));
  return runtime::KernelLoader::instance()
      .get(sm90_repack_kernel_key(bytes), p.device_index, [bytes]() { return sm90_repack_kernel_build(bytes); })
      .function;
}

const Sm90Operator::StreamKSpace* Sm90Operator::stream_k_workspace(const runtime::Driver& driver, int device,
                                                                    CUstream stream) {
  std::lock_guard<std::mutex> lock(workspace_mutex_);
  const auto key = std::make_pair(device, stream);
  if (auto it = workspaces_.find(key); it != workspaces_.end()) return &it->second;
  if (runtime::stream_captures(driver, stream)) return nullptr;
  // The flags (two words per CTA, padded to 256 bytes) first, then the
  // partial sums (a tile of f32 or int32 per CTA), for the most CTAs a
  // persistent grid launches.
  const int ctas = sm_count_of(device);
  const std::size_t flags = (static_cast<std::size_t>(ctas) * 8 + 255) / 256 * 256;
  StreamKSpace space;
  space.buffer = zeroed_workspace(driver, device, stream,
                                  flags + static_cast<std::size_t>(ctas) * config_.bm * config_.bn * sizeof(float),
                                  flags, "zeroing stream-K's flags");
  if (space.buffer.data() == nullptr) return nullptr;  // whole tiles this time
  space.flags = space.buffer.data();
  space.partials = static_cast<std::byte*>(space.buffer.data()) + flags;
  return &workspaces_.emplace(key, std::move(space)).first->second;
}

Sm90Operator::IdentityCounter* Sm90Operator::identity_counter(const runtime::Driver& driver, int device,
                                                             CUstream stream) {
  if (runtime::stream_captures(driver, stream)) return nullptr;
  const auto key = std::make_pair(device, stream);
  if (auto it = identity_counters_.find(key); it != identity_counters_.end()) return &it->second;
  IdentityCounter counter;
  counter.buffer = zeroed_workspace(driver, device, stream, 256, 4, "zeroing the identity counter");
  if (counter.buffer.data() == nullptr) return nullptr;  // the fill kernel this time
  return &identity_counters_.emplace(key, std::move(counter)).first->second;
}

void Sm90Operator::run(const Problem& problem, void* stream) {
  const Problem& p = oriented(problem, config_.d_column_major);
  Sm90Plan plan = launch_plan(p);
  const runtime::Driver& driver = runtime::Driver::require();
  const int device = p.device_index;
  // NOTE: with the device's primary context current (the usual case) the
  // guard costs one query and allocates nothing.
  const runtime::ContextGuard guard(driver, device);
  const Kernels k = kernels_for(p, plan);

  runtime::LaunchConfig config;
  config.stream = static_cast<CUstream>(stream);
  // A and B that TMA cannot read as they lie: copied first, their views
  // moved to the copies. Both the copy and the GEMM after it are ordinary
  // launches: a GEMM launched early beside the copy (a programmatic
  // dependent of it) was 13-17% slower at 4095^3 and 4096x4096x4095 on the
  // H200, and 3% faster only at M = 16.
  std::optional<Sm90RepackSpace::Lease> repacked;
  if (const std::uint64_t bytes = sm90_repack_bytes(plan); bytes > 0) {
    repacked.emplace(repack_space_.acquire(driver, device, config.stream, bytes));
    void* workspace = repacked->data();
    if (plan.repack_a.active) plan.a.data = static_cast<std::byte*>(workspace) + plan.repack_a.offset;
    if (plan.repack_b.active) plan.b.data = static_cast<std::byte*>(workspace) + plan.repack_b.offset;
    unsigned blocks = 0;
    Sm90RepackArgs repack = sm90_repack_args(plan, workspace, blocks);
    void* repack_params[] = {&repack};
    config.grid = {blocks, 1, 1};
    config.block = {static_cast<unsigned>(kSm90RepackThreads), 1, 1};
    driver.launch(repack_kernel(p), config, repack_params);
  }

  Sm90Maps maps;
  maps_.get(driver, plan, maps);
  Sm90GemmParams gemm = sm90_gemm_params(p, plan, config_);
  // EpgSimtArgs (the fill's argument): EpgGemmArgs, then EpgParams, which
  // is also the whole of the GEMM's hook (EpgSm90Hook holds only EpgParams).
  alignas(16) std::byte arguments[kMaxArgumentBytes];
  const codegen::DeviceGemmArgs fill_gemm = codegen::gemm_args(p);
  std::memcpy(arguments, &fill_gemm, sizeof fill_gemm);
  std::byte* hook = arguments + sizeof fill_gemm;
  codegen::fill_epilogue_params(p, std::span<std::byte>(hook, sizeof arguments - sizeof fill_gemm));

  // The reduce outputs' identity: written by the GEMM itself when they are
  // few (the lock keeps launches in the order of their counter targets),
  // else by the fill kernel.
  std::unique_lock<std::mutex> identity_lock;
  IdentityCounter* counter = nullptr;
  if (plan.gemm_writes_identity) {
    identity_lock = std::unique_lock<std::mutex>(identity_mutex_);
    counter = identity_counter(driver, device, config.stream);
    if (counter == nullptr) identity_lock.unlock();
  }
  if (counter != nullptr) {
    gemm.identity_flag = static_cast<unsigned*>(counter->buffer.data());
    gemm.identity_target = counter->launches + 1;
  } else if (k.fill != nullptr) {
    void* fill_params[] = {arguments};
    const std::int64_t total = p.L * std::max(p.M, p.N);
    config.block = {static_cast<unsigned>(kSm90FillThreads), 1, 1};
    config.grid = {static_cast<unsigned>(std::min<std::int64_t>(ceil_div(total, kSm90FillThreads), 1 << 16)), 1, 1};
    driver.launch(k.fill, config, fill_params);
  }
  // Split-K or stream-K where the kernel has the code and the stream a workspace.
  const Sm90KCut cut = sm90_k_cut(config_, p, static_cast<int>(k.max_ctas));
  std::int64_t ctas = plan.unaligned_tile_rows ? cut.ctas : cut.whole_ctas;
  if (plan.stream_k_code && cut.sk_tiles > 0) {
    if (const StreamKSpace* space = stream_k_workspace(driver, device, config.stream)) {
      gemm.sk_tiles = static_cast<int>(cut.sk_tiles);
      gemm.sk_flags = static_cast<unsigned*>(space->flags);
      gemm.sk_partials = static_cast<unsigned*>(space->partials);
      ctas = cut.ctas;
    }
  }
  config.grid = {static_cast<unsigned>(ctas), 1, 1};
  config.block = {static_cast<unsigned>(config_.threads()), 1, 1};
  config.shared_bytes = k.shared_bytes;
  config.cluster = {static_cast<unsigned>(config_.cluster_m), 1, 1};
  // A programmatic dependent of the stream's previous kernel: the GEMM's
  // launch and set-up may overlap the end of that kernel, and it waits for
  // it (griddepcontrol.wait) before it touches global memory. After a fill
  // it waits only before it first adds to a reduce output, so its main loop
  // overlaps the fill. Not after a repack (see there).
  config.programmatic_dependency = driver.device_info(device).programmatic_launch && !repacked;
  void* params[] = {&maps.a, &maps.b, &maps.bt, &maps.d, &maps.c, &maps.f, &gemm, hook};
  driver.launch(k.gemm, config, params);
  if (counter != nullptr) ++counter->launches;
}

}  // namespace epigemm::detail
