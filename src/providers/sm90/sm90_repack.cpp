// The sm90 operator's repack step: kernel source, argument record, grid,
// and workspace.
#include "providers/sm90/sm90_repack.hpp"

#include <algorithm>
#include <string>

#include "codegen/embedded_kernels.hpp"
#include "codegen/kernel_source.hpp"
#include "epigemm/error.hpp"
#include "support/hash.hpp"
#include "support/text_writer.hpp"

namespace epigemm::detail {
namespace {

/// Blocks at most per operand; each loops over the rest of its work.
constexpr long long kMaxBlocksPerOperand = 4096;

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

Sm90RepackOperandArgs operand_args(const Sm90Repack& r, void* workspace) {
  Sm90RepackOperandArgs a;
  if (!r.active) return a;
  a.src = r.src;
  a.dst = static_cast<std::byte*>(workspace) + r.offset;
  a.batches = r.batches;
  a.outer = r.outer;
  a.inner = r.inner;
  a.src_batch = r.src_batch;
  a.src_outer = r.src_outer;
  a.src_inner = r.src_inner;
  a.dst_pitch = r.pitch;
  a.dst_batch = r.pitch * r.outer;
  a.through_tiles = r.src_inner != 1 && r.inner > 1 ? 1 : 0;
  long long work = 0;  // blocks' worth
  if (a.through_tiles != 0) {
    work = r.batches * ceil_div(r.outer, kSm90RepackTile) * ceil_div(r.pitch, kSm90RepackTile);
  } else {
    // Rows: enough threads per row for its 16-byte pieces (up to the
    // pitch), the rest of the block on further rows.
    const long long pieces = r.pitch * r.element_bytes / 16;
    while (a.row_lanes < kSm90RepackThreads && a.row_lanes < pieces) a.row_lanes *= 2;
    work = ceil_div(r.batches * r.outer, kSm90RepackThreads / a.row_lanes);
  }
  a.blocks = static_cast<int>(std::clamp<long long>(work, 1, kMaxBlocksPerOperand));
  return a;
}

}  // namespace

runtime::KernelSource sm90_repack_kernel_build(int element_bytes) {
  if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4) {
    throw Error(ErrorKind::Internal, "no repack kernel for " + std::to_string(element_bytes) + "-byte elements");
  }
  const std::string name = "epg_sm90_repack_kernel<" + std::to_string(element_bytes) + ">";
  TextWriter out;
  out << "// epigemm sm90 operand repack: " << element_bytes << "-byte elements into 128-byte-aligned rows.\n"
      << "#include \"operand_repack.cuh\"\n\n"
      << "static_assert(kEpgRepackThreads == " << kSm90RepackThreads << " && kEpgRepackTile == " << kSm90RepackTile
      << ", \"the host's repack block and tile differ from the kernel's\");\n"
      << "template <int kBytes>\n"
      << "__global__ void __launch_bounds__(kEpgRepackThreads) epg_sm90_repack_kernel(const __grid_constant__ "
         "EpgRepackArgs args) {\n"
      << "  epg_repack_operands<kBytes>(args);\n}\n\n"
      << codegen::kInstantiatedKernelComment << name << "\n";
  runtime::KernelSource source;
  source.source = out.str();
  source.name_expression = name;
  source.arch = runtime::arch_name(90);
  source.options = {"-std=c++17"};
  source.headers = codegen::embedded_kernel_files();
  source.file_name = "epigemm_sm90_repack_" + std::to_string(element_bytes) + "byte.cu";
  return source;
}

std::uint64_t sm90_repack_kernel_key(int element_bytes) noexcept {
  return hash_combine(fnv1a64("sm90_repack"), static_cast<std::uint64_t>(element_bytes));
}

Sm90RepackArgs sm90_repack_args(const Sm90Plan& plan, void* workspace, unsigned& blocks) noexcept {
  Sm90RepackArgs args;
  // The kernel gives its first op[0].blocks blocks to op[0]: B's copy goes
  // first when A is read as it lies.
  const Sm90Repack* first = plan.repack_a.active ? &plan.repack_a : &plan.repack_b;
  const Sm90Repack* second = plan.repack_a.active ? &plan.repack_b : nullptr;
  args.op[0] = operand_args(*first, workspace);
  if (second != nullptr) args.op[1] = operand_args(*second, workspace);
  blocks = static_cast<unsigned>(args.op[0].blocks + args.op[1].blocks);
  return args;
}

Sm90RepackSpace::Lease::Lease(Lease&& other) noexcept
    : lock_(std::move(other.lock_)),
      driver_(std::exchange(other.driver_, nullptr)),
      stream_(std::exchange(other.stream_, nullptr)),
      data_(std::exchange(other.data_, nullptr)),
      stream_ordered_(std::exchange(other.stream_ordered_, false)) {}

Sm90RepackSpace::Lease::~Lease() {
  if (stream_ordered_ && data_ != nullptr) {
    (void)driver_->mem_free_async(reinterpret_cast<CUdeviceptr>(data_), stream_);
  }
}

Sm90RepackSpace::Lease Sm90RepackSpace::acquire(const runtime::Driver& driver, int device, CUstream stream,
                                                std::uint64_t bytes) {
  Lease lease;
  lease.lock_ = std::unique_lock<std::mutex>(mutex_);
  lease.driver_ = &driver;
  lease.stream_ = stream;
  const std::string what = "allocating " + std::to_string(bytes) +
                           " bytes of workspace to repack A or B (rows TMA cannot read as they lie)";
  if (runtime::stream_captures(driver, stream)) {
    CUdeviceptr ptr = 0;
    driver.check(driver.mem_alloc_async(&ptr, bytes, stream), what + " while the stream captures a graph");
    lease.data_ = reinterpret_cast<void*>(ptr);
    lease.stream_ordered_ = true;
    return lease;
  }
  runtime::DeviceBuffer& buffer = buffers_[std::make_pair(device, stream)];
  if (buffer.size() < bytes) {
    // The stream's earlier launches may still read the old buffer.
    if (buffer.data() != nullptr) driver.check(driver.stream_synchronize(stream), "waiting to grow the repack workspace");
    buffer = runtime::DeviceBuffer();
    try {
      buffer = runtime::DeviceBuffer(driver, device, bytes);
    } catch (const Error& e) {
      throw Error(ErrorKind::Cuda, what + ": " + e.message());
    }
  }
  lease.data_ = buffer.data();
  return lease;
}

}  // namespace epigemm::detail
