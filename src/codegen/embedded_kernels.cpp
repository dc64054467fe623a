// Lookup of one embedded kernels/ header by file name (the table itself is
// generated at build time by cmake/embed_files.cmake).
#include "codegen/embedded_kernels.hpp"

namespace epigemm::codegen {

std::optional<std::string_view> embedded_kernel_file(std::string_view name) noexcept {
  for (const auto& [file, text] : embedded_kernel_files()) {
    if (file == name) return text;
  }
  return std::nullopt;
}

}  // namespace epigemm::codegen
