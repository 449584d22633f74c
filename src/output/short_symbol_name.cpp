// SPDX-License-Identifier: Apache-2.0
// Short names of kernels and functions for text tables (nsys's shortName rule).
#include <tracesweep/output/writer.hpp>

#include <string>

namespace tracesweep::output {

namespace {

/// `s` without its bracketed parts at depth 0 from `open` to the matching `close` (nesting of
/// any of <>, (), [], {} counted); "operator<" and the like keep their bracket.
std::string without_template_arguments(std::string_view s) {
  std::string out;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char const c = s[i];
    bool const operator_name = i >= 8 && s.substr(i - 8, 8) == "operator";
    if (c == '<' && !operator_name) {
      ++depth;
      continue;
    }
    if (c == '>' && depth > 0) {
      --depth;
      continue;
    }
    if (depth == 0) out += c;
  }
  return out;
}

}  // namespace

std::string short_symbol_name(std::string_view name) {
  // The parameters begin at the first '(' outside template arguments.
  int angle = 0;
  std::size_t end = name.size();
  constexpr std::string_view anonymous = "(anonymous namespace)";
  for (std::size_t i = 0; i < name.size(); ++i) {
    char const c = name[i];
    if (name.substr(i).starts_with(anonymous)) {  // a scope, not the parameters
      i += anonymous.size() - 1;
      continue;
    }
    if (c == '<') ++angle;
    if (c == '>' && angle > 0) --angle;
    if (c == '(' && angle == 0 && i > 0) {
      end = i;
      break;
    }
  }
  auto base = without_template_arguments(name.substr(0, end));
  while (!base.empty() && base.back() == ' ') base.pop_back();
  // The last word outside [] (no return type), then after the last "::" (no namespace or class).
  std::size_t space = std::string::npos;
  int square = 0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    if (base[i] == '[') ++square;
    if (base[i] == ']' && square > 0) --square;
    if (base[i] == ' ' && square == 0) space = i;
  }
  if (space != std::string::npos) base.erase(0, space + 1);
  if (auto const scope = base.rfind("::"); scope != std::string::npos) base.erase(0, scope + 2);
  return base.empty() ? std::string(name) : base;
}

}  // namespace tracesweep::output
