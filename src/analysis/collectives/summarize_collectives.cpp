// SPDX-License-Identifier: Apache-2.0
// The collectives table (collectives.hpp): per rank, kind, data type, size and process group the
// calls, their time, their bandwidths as nccl-tests defines them, and their wait and transfer
// from the matching.
#include <tracesweep/analysis/collectives.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include <tracesweep/exact_stats.hpp>

#include "analysis/collectives/nccl_kernels.hpp"

namespace tracesweep {

namespace {

/// What one NCCL kernel is: the key of its table row, and its group size (0: not recorded).
struct kernel_facts {
  collective_kind kind = collective_kind::other;
  data_type type;
  std::string process_group;
  std::optional<std::int64_t> bytes;
  std::int64_t group_size = 0;
};

/// The data type a kernel name's type token names ("…_Sum_f32_RING_LL", "…_Sum_float(…)",
/// "…_Sum_int8_t(…)"): the first word between underscores, or the rest of the name from a word,
/// that is a data type.
data_type type_in_name(std::string_view name) {
  name = name.substr(0, name.find('('));
  for (std::size_t at = 0; at < name.size();) {
    auto const end = std::min(name.find('_', at), name.size());
    for (auto const candidate : {name.substr(at, end - at), name.substr(at)})
      if (auto type = data_type_of(candidate); type.size > 0) return type;
    at = end + 1;
  }
  return {};
}

/// Whether any host row carries collective args (older traces' `nccl:*` annotations and
/// `c10d::*` ops): only then are kernels' launches followed up the host ranges.
bool has_host_records(event_table const& t) {
  return std::any_of(t.collectives.row.begin(), t.collectives.row.end(),
                     [&](auto r) { return t.device[r] < 0; });
}

/// Fills what `a` lacks from `outer`.
void fill_missing(collective_args& a, collective_args const& outer) {
  for (auto [mine, theirs] :
       {std::pair{&a.operation, outer.operation}, std::pair{&a.dtype, outer.dtype},
        std::pair{&a.process_group, outer.process_group}})
    if (*mine == string_pool::npos) *mine = theirs;
  for (auto [mine, theirs] :
       {std::pair{&a.in_elements, outer.in_elements},
        std::pair{&a.out_elements, outer.out_elements}, std::pair{&a.group_size, outer.group_size}})
    if (*mine < 0) *mine = theirs;
}

/// The args of kernel `row`: its own, completed by the host records around its launch call,
/// innermost first (an `nccl:*` annotation inside a `c10d::*` op); nothing when neither exists.
std::optional<collective_args> args_of(trace_model const& model, std::size_t row,
                                       bool host_records) {
  auto const& t = model.table();
  std::optional<collective_args> out;
  if (auto const* own = t.collectives.find(row)) out = *own;
  if (!host_records || (out && out->in_elements >= 0 && out->out_elements >= 0)) return out;
  for (auto p = model.launcher(row);
       p >= 0 && (p = model.parent(static_cast<std::size_t>(p))) >= 0;) {
    auto const* a = t.collectives.find(static_cast<std::size_t>(p));
    if (!a) continue;
    if (!out) out.emplace();
    fill_missing(*out, *a);
  }
  return out;
}

/// The group size an all_gather's or reduce_scatter's counts imply (output n times the input,
/// or the reverse), 0 when they imply none.
std::int64_t implied_group_size(collective_kind kind, collective_args const& a) {
  auto [big, small] = std::pair{a.out_elements, a.in_elements};
  if (kind == collective_kind::reduce_scatter) std::swap(big, small);
  if (kind != collective_kind::all_gather && kind != collective_kind::reduce_scatter) return 0;
  return small > 0 && big >= small && big % small == 0 ? big / small : 0;
}

kernel_facts facts_of(trace_model const& model, std::size_t row, collective_kind by_name,
                      bool host_records) {
  auto const& t = model.table();
  kernel_facts f;
  f.kind = by_name;
  auto const args = args_of(model, row, host_records);
  auto text = [&](string_id id) {
    return id == string_pool::npos ? std::string_view() : t.strings().at(id);
  };
  if (args)
    if (auto k = collective_kind_of_operation(text(args->operation))) f.kind = *k;
  f.type = args && args->dtype != string_pool::npos ? data_type_of(text(args->dtype))
                                                    : type_in_name(t.strings().at(t.name[row]));
  if (!args) return f;
  f.process_group = std::string(text(args->process_group));
  f.group_size = args->group_size > 0 ? args->group_size : implied_group_size(f.kind, *args);
  auto const elements =
      f.kind == collective_kind::all_gather ? args->out_elements : args->in_elements;
  std::int64_t bytes = 0;
  if (elements >= 0 && f.type.size > 0) {
    if (__builtin_mul_overflow(elements, f.type.size, &bytes))
      throw_overflow("the bytes of a collective");
    f.bytes = bytes;
  }
  return f;
}

using row_key = std::tuple<std::int32_t, collective_kind, std::string, std::optional<std::int64_t>,
                           std::string>;

struct row_sums {
  std::int64_t calls = 0, total_ns = 0, matched = 0, wait_ns = 0, transfer_ns = 0;
  std::int64_t group_size = 0;
};

/// GB/s of `bytes` × `calls` over `ns`, times `factor`; nullopt without bytes or time.
std::optional<double> bandwidth(std::optional<std::int64_t> bytes, std::int64_t calls,
                                std::int64_t ns, double factor) {
  if (!bytes || ns <= 0) return std::nullopt;
  return static_cast<double>(*bytes) * static_cast<double>(calls) / static_cast<double>(ns) *
         factor;
}

}  // namespace

std::vector<collective_summary> summarize_collectives(trace_model const& model,
                                                      collective_matching const& matching) {
  auto const& t = model.table();
  auto const groups = model.device_group();
  auto const devices = model.devices();
  std::map<row_key, row_sums> rows;
  std::map<std::string, std::set<group_id>> gpus_of_group;  // participants when n is not recorded
  std::size_t next_matched = 0;
  bool const host_records = has_host_records(t);
  collectives_detail::for_each_nccl_kernel(model, [&](std::size_t i, collective_kind by_name) {
    auto const f = facts_of(model, i, by_name, host_records);
    auto& s = rows[{devices[groups[i]].rank, f.kind, f.type.name, f.bytes, f.process_group}];
    ++s.calls;
    s.total_ns = checked_add(s.total_ns, t.end_ns[i] - t.start_ns[i], "collective time");
    s.group_size = std::max(s.group_size, f.group_size);
    gpus_of_group[f.process_group].insert(groups[i]);
    while (next_matched < matching.kernels.size() && matching.kernels[next_matched].row < i)
      ++next_matched;
    if (next_matched < matching.kernels.size() && matching.kernels[next_matched].row == i) {
      auto const& m = matching.kernels[next_matched];
      ++s.matched;
      s.wait_ns = checked_add(s.wait_ns, m.wait_ns, "collective wait");
      s.transfer_ns = checked_add(s.transfer_ns, m.transfer_ns, "collective transfer");
    }
  });
  std::vector<collective_summary> out;
  for (auto const& [key, s] : rows) {
    collective_summary c;
    std::tie(c.rank, c.kind, c.dtype, c.bytes, c.process_group) = key;
    c.calls = s.calls, c.total_ns = s.total_ns, c.matched = s.matched;
    c.group_size = s.group_size > 0
                       ? s.group_size
                       : static_cast<std::int64_t>(gpus_of_group[c.process_group].size());
    double const factor = bus_factor(c.kind, c.group_size);
    c.algbw_gbps = bandwidth(c.bytes, c.calls, c.total_ns, 1.0);
    c.busbw_gbps = bandwidth(c.bytes, c.calls, c.total_ns, factor);
    if (s.matched > 0) {
      c.wait_ns = s.wait_ns, c.transfer_ns = s.transfer_ns;
      c.busbw_transfer_gbps = bandwidth(c.bytes, s.matched, s.transfer_ns, factor);
    }
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](auto const& a, auto const& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.total_ns > b.total_ns;
  });
  return out;
}

}  // namespace tracesweep
