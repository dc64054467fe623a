// Whole kernel translation units: a kernel template of kernels/ instantiated
// with the generated epilogue for one problem class, as NVRTC compiles it and
// `epigemm emit` prints it; and the cheap key that names that class.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "api/problem.hpp"
#include "epigemm/error.hpp"

namespace epigemm::codegen {

/// The kernel templates of kernels/ that the generator can instantiate.
enum class KernelTemplate : std::uint8_t {
  simt,  ///< kernels/simt_gemm.cuh: CUDA-core tiled GEMM, any layout and dtype
  sm80,  ///< kernels/sm80_gemm.cuh: mma.sync tensor cores, f16/bf16, any layout and alignment
};

/// "simt", "sm80".
std::string_view to_string(KernelTemplate kind) noexcept;
/// The template named `name`; nullopt when unknown.
std::optional<KernelTemplate> parse_kernel_template(std::string_view name) noexcept;

/// The simt template's entry points (extern "C", so no name lowering):
/// the GEMM, and the kernel that fills reduce outputs with their identity.
inline constexpr const char kSimtGemmKernel[] = "epg_simt_gemm_kernel";
inline constexpr const char kSimtFillKernel[] = "epg_simt_fill_kernel";
/// Threads per block of both simt kernels, and the simt block tile.
inline constexpr int kSimtThreads = 256;
inline constexpr int kSimtTileM = 64, kSimtTileN = 64, kSimtTileK = 16;

/// The sm80 template's GEMM entry point (its identity fill is kSimtFillKernel),
/// threads per block and block tile.
inline constexpr const char kSm80GemmKernel[] = "epg_sm80_gemm_kernel";
inline constexpr int kSm80Threads = 256;
inline constexpr int kSm80TileM = 128, kSm80TileN = 128, kSm80TileK = 32;
/// k-tiles in the sm80 kernel's shared-memory ring.
inline constexpr int kSm80Stages = 4;
/// Blocks per SM the sm80 kernel's registers are capped for (__launch_bounds__).
inline constexpr int kSm80MinBlocksPerSm = 1;

/// How the sm80 kernel moves A and B: whether each is staged K-major (its K
/// stride is 1, or it has no unit stride) or M/N-major, and the elements per
/// load (8, 4, 2 or 1) its pointer, strides and contiguous extent allow.
struct Sm80Variant {
  bool a_k_major = true, b_k_major = true;
  int a_vec = 1, b_vec = 1;
};
/// The variant for the problem's A and B (pointers included).
Sm80Variant sm80_variant(const detail::Problem& problem) noexcept;
/// Dynamic shared memory of the sm80 kernel: kSm80Stages stages of A's and
/// B's tiles, each row padded by 8 elements (the kernel asserts the same).
unsigned sm80_shared_bytes(const Sm80Variant& variant) noexcept;
/// Dynamic shared memory the template's GEMM kernel launches with (0 for simt).
unsigned dynamic_shared_bytes(const detail::Problem& problem, KernelTemplate kind) noexcept;

/// The comment that ends a unit whose kernel is a template (sm90): the rest
/// of its line is the name expression NVRTC must instantiate.
inline constexpr std::string_view kInstantiatedKernelComment = "// The kernel NVRTC instantiates from this unit:\n//   ";
/// The name expression a unit names after kInstantiatedKernelComment, or
/// empty when it names none (its kernels are extern "C").
std::string instantiated_kernel(std::string_view source);

/// Whether `kind` can be instantiated for the problem's dtypes; the reason
/// otherwise. Does not look at pointers, devices or the target.
Status can_instantiate(const detail::Problem& problem, KernelTemplate kind);

/// The complete CUDA C++ source: includes of kernels/ headers, the printed
/// DAG as a comment, the generated epilogue and the kernel entry points.
/// Throws Error(ErrorKind::Unsupported) when can_instantiate() says no.
std::string kernel_source(const detail::Problem& problem, KernelTemplate kind);

/// The names of the kernels/ headers the source includes (all of them are
/// embedded; see embedded_kernels.hpp).
std::span<const std::string_view> kernel_headers(KernelTemplate kind) noexcept;

/// A 64-bit key naming the problem class a kernel is built for: the
/// program's canonical DAG hash, the template, the target SM, A/B,
/// accumulator and compute dtypes, and each operand's kind, dtype and reduce
/// op. Equal keys, equal source. Cheap: hashes a few dozen integers, no text,
/// no allocation. The sm80 key includes its Sm80Variant.
std::uint64_t kernel_class_key(const detail::Problem& problem, KernelTemplate kind, int target_sm) noexcept;

}  // namespace epigemm::codegen
