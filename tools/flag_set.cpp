// FlagSet: declaration, parsing and --help text of a subcommand's flags.
// Unknown flags get a "did you mean" hint from the closest declared name.
#include "flag_set.hpp"

#include <algorithm>
#include <sstream>

namespace epigemm::cli {
namespace {

// Levenshtein distance, for suggesting a declared flag.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t replace = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, replace});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Words in --help are wrapped at this column.
constexpr std::size_t kHelpWidth = 100;

std::string flag_column(const FlagSpec& spec) {
  std::string s = "--" + spec.name;
  if (spec.arity != FlagArity::boolean) s += " " + spec.value_name;
  return s;
}

}  // namespace

FlagSet::FlagSet(std::string command, std::string usage_tail, std::string summary)
    : command_(std::move(command)), usage_tail_(std::move(usage_tail)), summary_(std::move(summary)) {}

void FlagSet::declare(FlagSpec spec) {
  if (find(spec.name)) throw std::logic_error("flag --" + spec.name + " declared twice");
  specs_.push_back(std::move(spec));
}

void FlagSet::add_value(const std::string& name, const std::string& value_name, const std::string& fallback,
                        const std::string& help) {
  declare({name, FlagArity::value, value_name, fallback, help});
}

void FlagSet::add_repeated(const std::string& name, const std::string& value_name, const std::string& help) {
  declare({name, FlagArity::repeated, value_name, "", help});
}

void FlagSet::add_boolean(const std::string& name, const std::string& help) {
  declare({name, FlagArity::boolean, "", "", help});
}

void FlagSet::add_section(const std::string& title) { sections_.emplace_back(specs_.size(), title); }

void FlagSet::add_epilog(const std::string& text) { epilog_ += (epilog_.empty() ? "" : "\n") + text; }

const FlagSpec* FlagSet::find(const std::string& name) const {
  for (const auto& spec : specs_) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

const FlagSpec& FlagSet::declared(const std::string& name) const {
  const FlagSpec* spec = find(name);
  if (!spec) throw std::logic_error("flag --" + name + " read but never declared");
  return *spec;
}

std::string FlagSet::suggestion(const std::string& name) const {
  const FlagSpec* best = nullptr;
  std::size_t best_distance = 0;
  for (const auto& spec : specs_) {
    const std::size_t d = edit_distance(name, spec.name);
    if (!best || d < best_distance) {
      best = &spec;
      best_distance = d;
    }
  }
  if (!best || best_distance > std::max<std::size_t>(2, name.size() / 3)) return "";
  return "; did you mean --" + best->name + "?";
}

void FlagSet::parse(const std::vector<std::string>& args) {
  given_.clear();
  positionals_.clear();
  help_requested_ = false;
  bool only_positionals = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (only_positionals || word.size() < 2 || word[0] != '-' || (word[1] != '-' && word != "-h")) {
      if (!only_positionals && word.size() >= 2 && word[0] == '-' && !(word[1] >= '0' && word[1] <= '9')) {
        throw UsageError("unknown flag '" + word + "' for '" + command_ + "' (flags start with --; see " + command_ +
                         " --help)");
      }
      positionals_.push_back(word);
      continue;
    }
    if (word == "--") {
      only_positionals = true;
      continue;
    }
    if (word == "-h" || word == "--help") {
      help_requested_ = true;
      return;
    }
    std::string name = word.substr(2);
    std::optional<std::string> inline_value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const FlagSpec* spec = find(name);
    if (!spec) {
      throw UsageError("unknown flag '--" + name + "' for '" + command_ + "'" + suggestion(name) + " (see " +
                       command_ + " --help)");
    }
    auto& slot = given_[name];
    if (spec->arity == FlagArity::boolean) {
      if (inline_value) throw UsageError("flag --" + name + " takes no value");
      slot.push_back("");
      continue;
    }
    if (spec->arity == FlagArity::value && !slot.empty()) {
      throw UsageError("flag --" + name + " given more than once");
    }
    if (inline_value) {
      slot.push_back(*inline_value);
    } else if (i + 1 < args.size()) {
      slot.push_back(args[++i]);
    } else {
      throw UsageError("flag --" + name + " needs a value (" + spec->value_name + ")");
    }
  }
}

bool FlagSet::has(const std::string& name) const {
  declared(name);
  return given_.count(name) > 0;
}

std::optional<std::string> FlagSet::value(const std::string& name) const {
  declared(name);
  auto it = given_.find(name);
  if (it == given_.end() || it->second.empty()) return std::nullopt;
  return it->second.front();
}

std::vector<std::string> FlagSet::values(const std::string& name) const {
  declared(name);
  auto it = given_.find(name);
  return it == given_.end() ? std::vector<std::string>{} : it->second;
}

std::string FlagSet::help() const {
  std::ostringstream out;
  out << "usage: " << command_ << " " << usage_tail_ << "\n\n" << summary_ << "\n";
  std::size_t width = 0;
  for (const auto& spec : specs_) width = std::max(width, flag_column(spec).size());
  width = std::min<std::size_t>(width, 34);
  std::size_t next_section = 0;
  if (!specs_.empty() && (sections_.empty() || sections_.front().first != 0)) out << "\nflags:\n";
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    while (next_section < sections_.size() && sections_[next_section].first == i) {
      out << "\n" << sections_[next_section++].second << ":\n";
    }
    const FlagSpec& spec = specs_[i];
    std::string column = flag_column(spec);
    std::string text = spec.help;
    if (!spec.fallback.empty()) text += " (default: " + spec.fallback + ")";
    if (spec.arity == FlagArity::repeated) text += " (repeatable)";
    out << "  " << column;
    std::size_t at = 2 + column.size();
    if (column.size() > width) {
      out << "\n" << std::string(width + 4, ' ');
    } else {
      out << std::string(width + 2 - column.size(), ' ');
    }
    at = width + 4;
    // Wrap the help text at kHelpWidth, continuing under its first word.
    std::istringstream words(text);
    std::string w;
    bool first = true;
    while (words >> w) {
      if (!first && at + 1 + w.size() > kHelpWidth) {
        out << "\n" << std::string(width + 4, ' ');
        at = width + 4;
        first = true;
      }
      if (!first) {
        out << ' ';
        ++at;
      }
      out << w;
      at += w.size();
      first = false;
    }
    out << "\n";
  }
  out << "  -h, --help" << std::string(width > 8 ? width - 8 : 1, ' ') << "show this help and exit\n";
  if (!epilog_.empty()) out << "\n" << epilog_ << "\n";
  return out.str();
}

}  // namespace epigemm::cli
