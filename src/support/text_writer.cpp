// Line prefixing for generated text.
#include "support/text_writer.hpp"

namespace epigemm {

std::string prefix_lines(std::string_view text, std::string_view prefix) {
  std::string out;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    out.append(prefix).append(line).push_back('\n');
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace epigemm
