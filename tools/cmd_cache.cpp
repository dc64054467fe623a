// `epigemm cache`: the on-disk kernel cache of src/runtime: where it is,
// what it holds, and clearing it.
#include <ctime>
#include <iostream>

#include "commands.hpp"
#include "runtime/disk_cache.hpp"
#include "support/env.hpp"
#include "text_table.hpp"

namespace epigemm::cli {
namespace {

FlagSet make_flags() {
  FlagSet flags("epigemm cache", "list|clear|path",
                "Manages the on-disk kernel cache: list its kernels, remove them all, or print its directory.\n"
                "The directory is $EPIGEMM_CACHE_DIR, else $XDG_CACHE_HOME/epigemm, else ~/.cache/epigemm.");
  flags.add_epilog("EPIGEMM_DISABLE_DISK_CACHE=1 makes the library neither read nor write the cache.");
  return flags;
}

std::string time_text(std::int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm parts{};
  if (!gmtime_r(&t, &parts)) return "?";
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%d %H:%M:%S", &parts);
  return std::string(buffer) + " UTC";
}

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

int list(const runtime::DiskCache& cache) {
  const std::vector<runtime::CacheEntryInfo> entries = cache.list();
  std::uintmax_t total = 0;
  for (const auto& e : entries) total += e.size;
  std::cout << "cache: " << cache.directory().string() << ": " << entries.size() << " kernel"
            << (entries.size() == 1 ? "" : "s") << ", " << total << " bytes\n";
  if (entries.empty()) return kExitOk;
  TextTable table({"key", "bytes", "modified", "kernels"});
  for (const auto& e : entries) {
    table.add_row({e.key.hex(), std::to_string(e.size), time_text(e.mtime),
                   e.valid ? join(e.name_expressions) : "(corrupt: removed by the next store or by cache clear)"});
  }
  std::cout << table.render("  ");
  return kExitOk;
}

}  // namespace

int cache_command(const std::vector<std::string>& words) {
  FlagSet flags = make_flags();
  if (parse_or_print_help(flags, words)) return kExitOk;
  const auto& positionals = flags.positionals();
  if (positionals.size() != 1) {
    throw UsageError("epigemm cache needs exactly one action: list, clear or path (see epigemm cache --help)");
  }
  const std::string& action = positionals.front();
  const runtime::DiskCache cache(env::cache_dir());
  if (action == "list") return list(cache);
  if (action == "path") {
    std::cout << cache.directory().string() << "\n";
    return kExitOk;
  }
  if (action == "clear") {
    const std::size_t removed = cache.clear();
    std::cout << "cache: removed " << removed << " file" << (removed == 1 ? "" : "s") << " from "
              << cache.directory().string() << "\n";
    return kExitOk;
  }
  throw UsageError("unknown cache action '" + action + "' (expected list, clear or path)");
}

}  // namespace epigemm::cli
