// Public error and status types. Every malformed input surfaces as one
// exception type (epigemm::Error); "this operator cannot run that problem" is a
// Status value carrying the reason, never an exception.
#pragma once

#include <stdexcept>
#include <string>

namespace epigemm {

/// What class of mistake an Error reports. The Python binding maps it onto
/// ValueError (Binding, Value, Shape, Type), SyntaxError (Syntax) and
/// RuntimeError (the rest).
enum class ErrorKind {
  Syntax,       ///< the epilogue source does not parse or breaks a language rule
  Binding,      ///< a name is bound that should not be, or is missing
  Value,        ///< a bad argument value (null pointer, bad flag, ...)
  Shape,        ///< shapes or strides that do not fit the problem
  Type,         ///< a dtype (or dtype pair) that cannot be used there
  Output,       ///< the epilogue's outputs are malformed (missing D, ...)
  Unsupported,  ///< an operator was asked to run a problem it does not support
  Compile,      ///< run-time compilation failed
  Cuda,         ///< the CUDA driver reported an error
  Internal,     ///< a broken invariant inside epigemm (a bug)
};

/// The one exception type of the library. `message()` is the bare message;
/// `what()` adds " (line L, column C)" when the error has a source position.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, int line = 0, int column = 0);

  ErrorKind kind() const noexcept { return kind_; }
  const std::string& message() const noexcept { return message_; }
  int line() const noexcept { return line_; }      ///< 1-based; 0 when none
  int column() const noexcept { return column_; }  ///< 1-based; 0 when none

 private:
  ErrorKind kind_;
  std::string message_;
  int line_;
  int column_;
};

/// Whether an operation is possible, and if not, why.
class Status {
 public:
  static Status ok() { return Status(); }
  static Status unsupported(std::string reason) { return Status(std::move(reason)); }

  bool is_ok() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  /// Empty when ok.
  const std::string& reason() const noexcept { return reason_; }

 private:
  Status() = default;
  explicit Status(std::string reason) : ok_(false), reason_(std::move(reason)) {}
  bool ok_ = true;
  std::string reason_;
};

}  // namespace epigemm
