// SPDX-License-Identifier: Apache-2.0
// Memory Manipulation and UserDefined Summaries (Paddle §1.11): user ranges by name, per rank.
#include <tracesweep/reports/paddle/user_range_summary.hpp>

#include <algorithm>
#include <cctype>
#include <map>

#include <tracesweep/exact_stats.hpp>

#include "reports/paddle/launched_device_time.hpp"

namespace tracesweep {

bool is_memory_manipulation(std::string_view name) noexcept {
  std::string lower(name);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("memcpy") != std::string::npos ||
         lower.find("memorycopy") != std::string::npos || lower.find("memset") != std::string::npos;
}

namespace {

/// Whether host row `i` belongs to table `which`.
bool selected(trace_model const& model, std::size_t i, user_range_table which) {
  auto const& t = model.table();
  if (t.kind[i] != event_kind::user_range || t.device[i] >= 0) return false;
  bool const memory = is_memory_manipulation(t.strings().at(t.name[i]));
  if (which == user_range_table::memory_manipulation) return memory;
  if (memory) return false;
  // Paddle prints only the ranges recorded from Python (the reader's role; its C++ UserDefined
  // ranges are internal).
  return model.row_producer(i) != producer::paddle || t.role[i].python_range();
}

void add_instance(user_range_item& m, std::int64_t cpu, std::int64_t gpu) {
  m.cpu_min_ns = m.calls == 0 ? cpu : std::min(m.cpu_min_ns, cpu);
  m.gpu_min_ns = m.calls == 0 ? gpu : std::min(m.gpu_min_ns, gpu);
  m.cpu_max_ns = std::max(m.cpu_max_ns, cpu);
  m.gpu_max_ns = std::max(m.gpu_max_ns, gpu);
  m.cpu_total_ns = checked_add(m.cpu_total_ns, cpu, "the CPU time of " + m.name);
  m.gpu_total_ns = checked_add(m.gpu_total_ns, gpu, "the GPU time of " + m.name);
  ++m.calls;
}

/// Device time launched inside the steps of each rank; without steps, every launched device row.
std::vector<std::int64_t> step_device_time(trace_model const& model,
                                           tables::launched_device_time const& launched) {
  auto const& t = model.table();
  std::vector<std::int64_t> out(model.ranks().size(), 0);
  for (std::size_t r = 0; r < out.size(); ++r)
    for (auto i : model.steps(r)) out[r] = checked_add(out[r], launched.inside(i), "step GPU time");
  for (std::size_t i = 0; i < t.size(); ++i) {
    auto const r = model.rank_index(t.rank[i]);
    if (model.steps(r).empty() && is_device_activity(t.kind[i]) && model.kept(i) &&
        model.launcher(i) >= 0)
      out[r] = checked_add(out[r], t.end_ns[i] - t.start_ns[i], "GPU time");
  }
  return out;
}

}  // namespace

std::vector<rank_user_ranges> compute_user_range_summary(job_session const& session,
                                                         user_range_table which) {
  auto const& model = session.model();
  auto const& t = model.table();
  tables::launched_device_time const launched(model);
  std::vector<std::map<std::string, user_range_item>> by_name(model.ranks().size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!selected(model, i, which)) continue;
    std::string name(t.strings().at(t.name[i]));
    auto& m = by_name[model.rank_index(t.rank[i])][name];
    m.name = std::move(name);
    add_instance(m, t.end_ns[i] - t.start_ns[i], launched.inside(i));
  }
  auto const step_gpu = step_device_time(model, launched);
  std::vector<rank_user_ranges> out(by_name.size());
  for (std::size_t r = 0; r < out.size(); ++r) {
    auto& o = out[r];
    o.rank = model.ranks()[r];
    o.total_ns = session.rank_denominator(r).total_ns;
    o.step_gpu_ns = step_gpu[r];
    for (auto& [name, m] : by_name[r]) {
      m.cpu_avg_ns = double(m.cpu_total_ns) / double(m.calls);
      m.gpu_avg_ns = double(m.gpu_total_ns) / double(m.calls);
      m.cpu_ratio = o.total_ns > 0 ? double(m.cpu_total_ns) / double(o.total_ns) : 0.0;
      m.gpu_ratio = o.step_gpu_ns > 0 ? double(m.gpu_total_ns) / double(o.step_gpu_ns) : 0.0;
      o.items.push_back(std::move(m));
    }
    std::sort(o.items.begin(), o.items.end(), [](auto const& a, auto const& b) {
      return a.cpu_total_ns != b.cpu_total_ns ? a.cpu_total_ns > b.cpu_total_ns : a.name < b.name;
    });
  }
  return out;
}

}  // namespace tracesweep
