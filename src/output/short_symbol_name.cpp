// SPDX-License-Identifier: Apache-2.0
// Short names of kernels and functions for text tables (nsys's shortName rule), and the short
// names of a column's names kept apart.
#include <tracesweep/output/writer.hpp>

#include <algorithm>
#include <map>
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

/// Where the parameters of `name` begin: its first '(' outside template arguments and not of
/// "(anonymous namespace)"; the size when it has none.
std::size_t parameters_at(std::string_view name) {
  int angle = 0;
  constexpr std::string_view anonymous = "(anonymous namespace)";
  for (std::size_t i = 0; i < name.size(); ++i) {
    char const c = name[i];
    if (name.substr(i).starts_with(anonymous)) {  // a scope, not the parameters
      i += anonymous.size() - 1;
      continue;
    }
    if (c == '<') ++angle;
    if (c == '>' && angle > 0) --angle;
    if (c == '(' && angle == 0 && i > 0) return i;
  }
  return name.size();
}

/// The last component of `name` with its template arguments: no return type, parameters or
/// namespaces ("void ns::k<4, a::b>(int)" → "k<4, a::b>"); the name itself when nothing is left.
std::string short_name_with_template_arguments(std::string_view name) {
  auto base = name.substr(0, parameters_at(name));
  while (!base.empty() && base.back() == ' ') base.remove_suffix(1);
  std::size_t from = 0;
  int depth = 0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    char const c = base[i];
    bool const operator_name = i >= 8 && base.substr(i - 8, 8) == "operator";
    if ((c == '<' && !operator_name) || c == '[') ++depth;
    if ((c == '>' || c == ']') && depth > 0) --depth;
    if (depth != 0) continue;
    if (c == ' ') from = i + 1;
    if (c == ':' && i + 1 < base.size() && base[i + 1] == ':') from = i + 2, ++i;
  }
  return from < base.size() ? std::string(base.substr(from)) : std::string(name);
}

}  // namespace

std::string short_symbol_name(std::string_view name) {
  std::size_t const end = parameters_at(name);
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

std::vector<std::string> distinct_short_names(std::span<std::string const> names) {
  std::vector<std::string> out;
  out.reserve(names.size());
  // Short name → the different full names that shorten to it, in order.
  std::map<std::string, std::vector<std::string_view>> alike;
  for (auto const& n : names) {
    out.push_back(short_symbol_name(n));
    auto& group = alike[out.back()];
    if (std::find(group.begin(), group.end(), n) == group.end()) group.emplace_back(n);
  }
  // Full name → what it shows where its short name is not its own.
  std::map<std::string_view, std::string> shown;
  for (auto& [short_name, group] : alike) {
    if (group.size() < 2) continue;
    std::sort(group.begin(), group.end());
    std::map<std::string, int> templated;
    for (auto const n : group) ++templated[short_name_with_template_arguments(n)];
    int number = 0;
    for (auto const n : group) {
      auto t = short_name_with_template_arguments(n);
      bool const own = templated[t] == 1 && t != short_name && !alike.contains(t);
      shown[n] = own ? std::move(t) : short_name + " #" + std::to_string(++number);
    }
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    if (auto const it = shown.find(names[i]); it != shown.end()) out[i] = it->second;
  return out;
}

}  // namespace tracesweep::output
