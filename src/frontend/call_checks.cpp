// Call rules of the epilogue language (see call_checks.hpp): the keyword
// names each function accepts and the wording of call errors.
#include "frontend/call_checks.hpp"

#include <algorithm>
#include <vector>

namespace epigemm::frontend {
namespace {

// Longest unknown name whose suggestions are ranked here (bounds the work).
constexpr std::size_t kMaxSuggestionQuery = 64;

struct KeywordName {
  std::string_view function;
  int index;
  std::string_view keyword;
};

// Keyword spellings of function arguments (PyTorch's names and short ones).
constexpr KeywordName kKeywordNames[] = {
    {"leaky_relu", 1, "negative_slope"}, {"leaky_relu", 1, "slope"}, {"elu", 1, "alpha"},
    {"clamp", 1, "min"},                 {"clamp", 1, "lo"},         {"clamp", 2, "max"},
    {"clamp", 2, "hi"},
};

// Edit distance (insert, delete, substitute, swap neighbours), ignoring case.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::size_t> d((n + 1) * (m + 1));
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i) at(i, 0) = i;
  for (std::size_t j = 0; j <= m; ++j) at(0, j) = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
    }
  }
  return at(n, m);
}

std::string plural(int n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

}  // namespace

std::string unknown_function_message(std::string_view name) {
  // The op table's close names, keeping those as close as the closest (so
  // 'relux' suggests 'relu' alone, while 'to_x8' suggests 'to_i8' and 'to_u8').
  std::vector<std::string> close = ir::close_function_names(name, 3);
  if (name.size() <= kMaxSuggestionQuery && !close.empty()) {
    std::size_t best = edit_distance(name, close.front());
    for (const std::string& c : close) best = std::min(best, edit_distance(name, c));
    std::erase_if(close, [&](const std::string& c) { return edit_distance(name, c) > best; });
  }
  std::string message = "Unknown function '" + std::string(name) + "'";
  if (close.empty()) return message + "; the language reference lists the functions an epilogue may call";
  message += "; did you mean ";
  for (std::size_t i = 0; i < close.size(); ++i) {
    if (i > 0) message += i + 1 == close.size() ? " or " : ", ";
    message += "'" + close[i] + "'";
  }
  return message + "?";
}

std::string arity_message(const ir::OpInfo& info, int given) {
  std::string message(info.name);
  if (info.min_arity == info.max_arity) {
    message += " takes " + plural(info.min_arity, "argument");
  } else if (info.max_arity == info.min_arity + 1) {
    message += " takes " + std::to_string(info.min_arity) + " or " + plural(info.max_arity, "argument");
  } else {
    message += " takes " + std::to_string(info.min_arity) + " to " + plural(info.max_arity, "argument");
  }
  message += " (" + std::to_string(given) + " given)";
  if (given >= 2 && info.code == ir::OpCode::max)
    message += "; it reduces one value over rows, columns or the whole output: for the elementwise maximum of two "
               "values use maximum(a, b)";
  if (given >= 2 && info.code == ir::OpCode::min)
    message += "; it reduces one value over rows, columns or the whole output: for the elementwise minimum of two "
               "values use minimum(a, b)";
  return message;
}

int keyword_argument_index(const ir::OpInfo& info, std::string_view keyword) {
  for (const KeywordName& k : kKeywordNames)
    if (k.function == info.name && k.keyword == keyword && k.index < info.max_arity) return k.index;
  return -1;
}

std::string accepted_keywords(const ir::OpInfo& info) {
  std::string list;
  for (const KeywordName& k : kKeywordNames) {
    if (k.function != info.name || k.index >= info.max_arity) continue;
    if (!list.empty()) list += ", ";
    list += "'" + std::string(k.keyword) + "'";
  }
  return list;
}

}  // namespace epigemm::frontend
