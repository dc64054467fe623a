// TextWriter: builds generated source text with `<<` like a string stream,
// but without iostreams: numbers go through std::to_chars, so the text never
// depends on a locale and a process that mixes C++ runtimes (e.g. one with
// PyTorch loaded) cannot hand it foreign locale facets.
#pragma once

#include <charconv>
#include <concepts>
#include <string>
#include <string_view>

namespace epigemm {

class TextWriter {
 public:
  TextWriter& operator<<(std::string_view text) {
    text_.append(text);
    return *this;
  }
  TextWriter& operator<<(const char* text) { return *this << std::string_view(text); }
  TextWriter& operator<<(const std::string& text) { return *this << std::string_view(text); }
  TextWriter& operator<<(char c) {
    text_.push_back(c);
    return *this;
  }
  template <std::integral T>
    requires(!std::same_as<T, char> && !std::same_as<T, bool>)
  TextWriter& operator<<(T value) {
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
    text_.append(buffer, result.ptr);
    return *this;
  }

  const std::string& str() const noexcept { return text_; }

 private:
  std::string text_;
};

/// Each line of `text` with `prefix` before it (a trailing newline ends the last line).
std::string prefix_lines(std::string_view text, std::string_view prefix);

}  // namespace epigemm
