// EpilogueArguments: an epilogue function (source text) with the values bound
// to its parameters and outputs. Constructing it parses the source, checks the
// bindings and builds the optimised DAG; malformed input throws epigemm::Error.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "epigemm/tensor.hpp"

namespace epigemm {

namespace detail {
struct EpilogueProgram;  // parsed, bound and optimised DAG (src/api/epilogue_program.hpp)
}

class EpilogueArguments {
 public:
  /// `source` is a function `def NAME(accum, ...): ...; return D, ...`.
  /// `bindings` names every parameter except accum, and every returned name.
  /// Shapes broadcast against D's shape, (L, M, N) or (M, N).
  EpilogueArguments(std::string source, std::map<std::string, Binding> bindings);

  const std::string& source() const noexcept { return source_; }
  const std::map<std::string, Binding>& bindings() const noexcept { return bindings_; }
  const Binding& binding(const std::string& name) const;  ///< throws Error if unbound

  /// Rebinds one existing name (new pointer, new scalar value, ...) without
  /// parsing again. Load and store kinds are inferred again if the shape class
  /// changed.
  void set(const std::string& name, Binding value);

  /// Internal: the program the providers read.
  const detail::EpilogueProgram& program() const noexcept { return *program_; }

 private:
  std::string source_;
  std::map<std::string, Binding> bindings_;
  std::shared_ptr<const detail::EpilogueProgram> program_;
};

}  // namespace epigemm
