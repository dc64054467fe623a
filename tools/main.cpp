// The epigemm command-line tool: dispatches to a subcommand and turns every
// failure into one "epigemm: error: ..." line on stderr with an exit code
// (1 for library errors, 2 for command-line mistakes); nothing escapes.
#include <algorithm>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "commands.hpp"
#include "epigemm/error.hpp"
#include "flag_set.hpp"

namespace epigemm::cli {
namespace {

struct Subcommand {
  const char* name;
  int (*run)(const std::vector<std::string>&);
  const char* summary;
};

constexpr Subcommand kSubcommands[] = {
    {"run", run_command, "run a GEMM with a fused epilogue on random data, time it, check it against the reference"},
    {"list", list_command, "list the operators for a problem, and why each rejected one was rejected"},
    {"dag", dag_command, "print the epilogue's AST, raw DAG or bound and optimised DAG (text or Graphviz)"},
    {"emit", emit_command, "print the generated CUDA source for a problem"},
    {"precompile", precompile_command, "compile a problem's kernels into the disk cache, no GPU needed"},
    {"cache", cache_command, "list or clear the on-disk kernel cache"},
};

std::string tool_help() {
  std::string s =
      "usage: epigemm <command> [flags]\n"
      "\n"
      "GEMMs whose epilogue you write as a small Python-like function, fused and compiled at run time.\n"
      "\n"
      "commands:\n";
  std::size_t width = 0;
  for (const auto& c : kSubcommands) width = std::max(width, std::string(c.name).size() + 2);
  for (const auto& c : kSubcommands) {
    std::string name = c.name;
    s += "  " + name + std::string(width - name.size(), ' ') + c.summary + "\n";
  }
  s +=
      "\n"
      "Run 'epigemm <command> --help' for a command's flags and their defaults.\n"
      "\n"
      "Example:\n"
      "  epigemm run --mnkl 512,512,256,1 \\\n"
      "      --epilogue \"def epi(accum, alpha, C): F = accum * alpha + C * 2.0; D = relu(F); return D, F\" \\\n"
      "      --scalar alpha=3\n"
      "\n"
      "Exit codes: 0 ok, 1 error, 2 bad command line, 3 an output failed the reference check.\n";
  return s;
}

// A command-line mistake is reported on one line, however it was built.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

// The message as it is (a compile error carries the compiler's log on the
// lines after the first), ending in one newline.
int report(std::string message, int code) {
  std::cout.flush();
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  std::cerr << "epigemm: error: " << message << "\n";
  return code;
}

int dispatch(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << tool_help();
    return kExitUsage;
  }
  const std::string& command = args.front();
  if (command == "-h" || command == "--help" || command == "help") {
    std::cout << tool_help();
    return kExitOk;
  }
  if (command == "--version") {
    std::cout << "epigemm 0.1.0\n";
    return kExitOk;
  }
  for (const auto& c : kSubcommands) {
    if (command == c.name) return c.run(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  std::string names;
  for (const auto& c : kSubcommands) names += (names.empty() ? "" : ", ") + std::string(c.name);
  throw UsageError("unknown command '" + command + "' (commands: " + names + "; see epigemm --help)");
}

}  // namespace

bool parse_or_print_help(FlagSet& flags, const std::vector<std::string>& words) {
  flags.parse(words);
  if (!flags.help_requested()) return false;
  std::cout << flags.help();
  return true;
}

void reject_positionals(const std::vector<std::string>& positionals, const std::string& command) {
  if (!positionals.empty()) {
    throw UsageError("unexpected argument '" + positionals.front() + "' for '" + command + "' (see " + command +
                     " --help)");
  }
}

}  // namespace epigemm::cli

int main(int argc, char** argv) {
  using namespace epigemm::cli;
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const int code = dispatch(args);
    std::cout.flush();
    if (!std::cout) return report("cannot write the output", kExitError);
    return code;
  } catch (const UsageError& e) {
    return report(one_line(e.what()), kExitUsage);
  } catch (const epigemm::Error& e) {
    return report(e.what(), kExitError);
  } catch (const std::bad_alloc&) {
    return report("out of memory", kExitError);
  } catch (const std::exception& e) {
    return report(std::string("internal error: ") + e.what(), kExitError);
  } catch (...) {
    return report("internal error: unknown exception", kExitError);
  }
}
