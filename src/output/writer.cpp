// SPDX-License-Identifier: Apache-2.0
// The format registry: one line per format.
#include <tracesweep/error.hpp>
#include <tracesweep/output/writer.hpp>

#include <algorithm>
#include <string>

namespace tracesweep::output {

void write_text(result_set const&, std::string_view, std::ostream&, write_options const&);
void write_csv(result_set const&, std::string_view, std::ostream&, write_options const&);
void write_json(result_set const&, std::string_view, std::ostream&, write_options const&);
void write_html(result_set const&, std::string_view, std::ostream&, write_options const&);
void write_perfetto(result_set const&, std::string_view, std::ostream&, write_options const&);

namespace {
constexpr writer_entry registry[] = {
    {"text", &write_text}, {"csv", &write_csv},           {"json", &write_json},
    {"html", &write_html}, {"perfetto", &write_perfetto},
};
}  // namespace

std::span<writer_entry const> writers() noexcept {
  return registry;
}

write_function find_writer(std::string_view format) noexcept {
  for (auto const& w : registry)
    if (w.name == format) return w.write;
  return nullptr;
}

std::vector<result_table const*> tables_for(result_set const& results, view v,
                                            std::string_view table) {
  std::vector<result_table const*> picked;
  std::vector<std::string> names;
  for (auto const& t : results.tables) {
    if (!(t.views & v)) continue;
    if (std::find(names.begin(), names.end(), t.name) == names.end()) names.push_back(t.name);
    if (table.empty() || t.name == table) picked.push_back(&t);
  }
  if (!table.empty() && picked.empty())
    throw unknown_table_error(std::string(table), std::move(names));
  return picked;
}

}  // namespace tracesweep::output
