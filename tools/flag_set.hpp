// FlagSet: the command-line flags of one epigemm subcommand. Each flag is
// declared with its value name, default and help line; parse() reads
// `--flag value`, `--flag=value`, repeated and boolean flags, and positional
// words, and throws UsageError (exit code 2) for anything it does not know.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace epigemm::cli {

/// A mistake on the command line (unknown flag, malformed value, ...). The
/// tool prints "epigemm: error: <what()>" and exits with kExitUsage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Exit codes of the tool.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;        ///< an epigemm::Error (bad epilogue, unsupported problem, ...)
inline constexpr int kExitUsage = 2;        ///< a bad command line
inline constexpr int kExitCheckFailed = 3;  ///< `run`: an output differs from the reference

/// How a flag takes values.
enum class FlagArity {
  value,     ///< `--name VALUE` once
  repeated,  ///< `--name VALUE`, any number of times
  boolean,   ///< `--name`, no value
};

struct FlagSpec {
  std::string name;        ///< without the leading dashes
  FlagArity arity = FlagArity::value;
  std::string value_name;  ///< e.g. "M,N,K,L"
  std::string fallback;    ///< the default as shown in --help; empty: none
  std::string help;
};

class FlagSet {
 public:
  /// `command` is e.g. "epigemm run"; `usage_tail` follows it in the usage
  /// line (e.g. "[flags]" or "list|clear"); `summary` is the paragraph
  /// printed under it by --help.
  FlagSet(std::string command, std::string usage_tail, std::string summary);

  /// Declares a flag. `fallback` is only shown in --help; readers decide.
  void add_value(const std::string& name, const std::string& value_name, const std::string& fallback,
                 const std::string& help);
  void add_repeated(const std::string& name, const std::string& value_name, const std::string& help);
  void add_boolean(const std::string& name, const std::string& help);
  /// Starts a titled group of flags in --help.
  void add_section(const std::string& title);
  /// A paragraph printed after the flags in --help.
  void add_epilog(const std::string& text);

  /// Reads `args` (the words after the subcommand). `-h` and `--help` set
  /// help_requested() and stop parsing. Throws UsageError.
  void parse(const std::vector<std::string>& args);

  bool help_requested() const noexcept { return help_requested_; }
  /// The --help text.
  std::string help() const;

  /// Whether the flag was given on the command line.
  bool has(const std::string& name) const;
  /// The value of a value flag, when given.
  std::optional<std::string> value(const std::string& name) const;
  /// Every value of a repeated flag, in order.
  std::vector<std::string> values(const std::string& name) const;
  /// Whether a boolean flag was given.
  bool flag(const std::string& name) const { return has(name); }
  /// Words that are not flags, in order.
  const std::vector<std::string>& positionals() const noexcept { return positionals_; }

  const std::string& command() const noexcept { return command_; }

 private:
  const FlagSpec* find(const std::string& name) const;
  const FlagSpec& declared(const std::string& name) const;  // throws std::logic_error
  std::string suggestion(const std::string& name) const;
  void declare(FlagSpec spec);

  std::string command_;
  std::string usage_tail_;
  std::string summary_;
  std::string epilog_;
  std::vector<FlagSpec> specs_;
  std::vector<std::pair<std::size_t, std::string>> sections_;  // (first spec index, title)
  std::map<std::string, std::vector<std::string>> given_;
  std::vector<std::string> positionals_;
  bool help_requested_ = false;
};

}  // namespace epigemm::cli
