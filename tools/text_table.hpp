// TextTable: rows of text cells printed as left-aligned columns, for the
// binding, operator and check tables the tool prints.
#pragma once

#include <string>
#include <vector>

namespace epigemm::cli {

class TextTable {
 public:
  /// `header` names the columns; an empty header prints no header line.
  explicit TextTable(std::vector<std::string> header);

  /// Adds a row; missing trailing cells print empty, extra cells are kept.
  void add_row(std::vector<std::string> cells);
  bool empty() const noexcept { return rows_.empty(); }

  /// Every line starts with `indent`; columns are separated by two spaces;
  /// trailing spaces are trimmed.
  std::string render(const std::string& indent) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace epigemm::cli
