// The subcommands of the epigemm tool. Each takes the words after its name,
// writes its results to stdout, and returns the process exit code; usage
// mistakes throw UsageError and library errors throw epigemm::Error.
#pragma once

#include <string>
#include <vector>

#include "flag_set.hpp"

namespace epigemm::cli {

int run_command(const std::vector<std::string>& args);
int list_command(const std::vector<std::string>& args);
int dag_command(const std::vector<std::string>& args);
int emit_command(const std::vector<std::string>& args);
int precompile_command(const std::vector<std::string>& args);
int cache_command(const std::vector<std::string>& args);

/// Parses a subcommand's words into `flags`; when --help was asked, prints
/// the help and returns true (the subcommand then ends with kExitOk).
bool parse_or_print_help(FlagSet& flags, const std::vector<std::string>& words);

/// Throws UsageError when a subcommand that takes none was given a
/// positional word.
void reject_positionals(const std::vector<std::string>& positionals, const std::string& command);

}  // namespace epigemm::cli
