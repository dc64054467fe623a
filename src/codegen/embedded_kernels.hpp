// The kernels/*.cuh headers, embedded in the library at build time
// (cmake/embed_kernels.cmake), so an installed library compiles kernels
// without a source tree.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <utility>

namespace epigemm::codegen {

/// Every embedded header as (file name, contents), e.g. ("simt_gemm.cuh", "...").
std::span<const std::pair<std::string_view, std::string_view>> embedded_kernel_files();

/// The contents of one embedded header; nullopt when there is none by that name.
std::optional<std::string_view> embedded_kernel_file(std::string_view name) noexcept;

}  // namespace epigemm::codegen
