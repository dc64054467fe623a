// epigemm::Error: message, kind and optional source position.
#include "epigemm/error.hpp"

namespace epigemm {
namespace {

std::string with_position(const std::string& message, int line, int column) {
  if (line <= 0) return message;
  return message + " (line " + std::to_string(line) + ", column " + std::to_string(column) + ")";
}

}  // namespace

Error::Error(ErrorKind kind, const std::string& message, int line, int column)
    : std::runtime_error(with_position(message, line, column)),
      kind_(kind),
      message_(message),
      line_(line),
      column_(column) {}

}  // namespace epigemm
