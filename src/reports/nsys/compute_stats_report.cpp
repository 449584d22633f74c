// SPDX-License-Identifier: Apache-2.0
// Computes the nsys stats reports: kernels by name through the kernel statistics pipeline; for
// the other reports each row of the event table gets a dense group key (by operation, API, range
// and style); the backend returns exact statistics per key; the one shared derive_stats turns
// them into means, medians and deviations.
#include <tracesweep/reports/nsys/stats_reports.hpp>

#include <tracesweep/analysis/kernel_stats.hpp>

#include <algorithm>
#include <array>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <tracesweep/event_kind.hpp>
#include <tracesweep/memcpy_labels.hpp>

#include "reports/nsys/launch_details.hpp"
#include "reports/nsys/nvtx_attribution.hpp"

namespace tracesweep {

namespace {

constexpr std::uint32_t no_key = 0xFFFF'FFFFu;

/// Dense group keys and their labels.
class key_space {
 public:
  /// The key of (name, style, launch): launch is cuda_gpu_kern_gb_sum's (grid, block) text.
  std::uint32_t id(std::string const& name, std::string_view style,
                   std::pair<std::string, std::string> const& launch = {}) {
    std::string composite = name;
    for (std::string_view part :
         {style, std::string_view(launch.first), std::string_view(launch.second)})
      composite.append(1, '\0').append(part);
    auto [it, fresh] =
        _ids.try_emplace(std::move(composite), static_cast<std::uint32_t>(_names.size()));
    if (fresh) {
      _names.push_back(name);
      _styles.emplace_back(style);
      _launches.push_back(launch);
    }
    return it->second;
  }
  [[nodiscard]] std::string const& name(std::uint32_t k) const { return _names[k]; }
  [[nodiscard]] std::string const& style(std::uint32_t k) const { return _styles[k]; }
  [[nodiscard]] auto const& launch(std::uint32_t k) const { return _launches[k]; }

 private:
  std::unordered_map<std::string, std::uint32_t> _ids;
  std::vector<std::string> _names, _styles;
  std::vector<std::pair<std::string, std::string>> _launches;
};

/// Assigns each row of the table its group key (no_key = not in the report) and its value.
class row_keyer {
 public:
  /// kern_sum by NVTX range: each kernel row's innermost range (stats::innermost_nvtx_range).
  void name_by_nvtx_range(std::vector<std::int64_t> innermost) {
    _innermost = std::move(innermost);
  }

  row_keyer(event_table const& t, stats_report r) : _t(t), _r(r) {
    _by_name.assign(t.strings().size() * style_count, no_key);
    _by_subkind.fill(no_key);
    if (r == stats_report::cuda_gpu_kern_gb_sum) {
      _detail = stats::launch_detail_index(t);
    }
  }

  std::uint32_t key(std::size_t i) {
    event_kind const k = _t.kind[i];
    switch (_r) {
      case stats_report::cuda_gpu_kern_sum:  // compute_kernel_stats, unless by NVTX range
        return k == event_kind::kernel && _t.device[i] >= 0 && !_innermost.empty()
                   ? by_range_and_name(i)
                   : no_key;
      case stats_report::cuda_api_sum:
        return k == event_kind::api_call ? by_name(_t.name[i], 0) : no_key;
      case stats_report::osrt_sum:
        return k == event_kind::os_call ? by_name(_t.name[i], 0) : no_key;
      case stats_report::nvtx_sum: {
        if (k != event_kind::user_range) return no_key;
        auto const s = _t.subkind[i];
        if (s != static_cast<std::uint8_t>(range_style::push_pop) &&
            s != static_cast<std::uint8_t>(range_style::start_end))
          return no_key;
        return by_name(_t.name[i], s == static_cast<std::uint8_t>(range_style::push_pop) ? 1 : 2);
      }
      case stats_report::cuda_gpu_mem_time_sum:
      case stats_report::cuda_gpu_mem_size_sum:
        if (k == event_kind::memcpy) return by_subkind(_t.subkind[i]);
        if (k == event_kind::memset) return by_memset();
        return no_key;
      case stats_report::cuda_gpu_kern_gb_sum:
        return k == event_kind::kernel && _t.device[i] >= 0 ? by_launch(i) : no_key;
      case stats_report::cuda_api_gpu_sum:
        if (k == event_kind::api_call) return by_name(_t.name[i], api_style);
        [[fallthrough]];
      case stats_report::cuda_gpu_sum:
        if (k == event_kind::kernel && _t.device[i] >= 0) return by_name(_t.name[i], kernel_style);
        if (k == event_kind::memcpy) return by_subkind(_t.subkind[i]);
        if (k == event_kind::memset) return by_memset();
        return no_key;
    }
    return no_key;
  }

  [[nodiscard]] std::int64_t value(std::size_t i) const {
    return _r == stats_report::cuda_gpu_mem_size_sum ? _t.bytes_of(i)
                                                     : _t.end_ns[i] - _t.start_ns[i];
  }
  [[nodiscard]] key_space const& keys() const { return _keys; }

 private:
  /// Styles of a name key: none, NVTX styles, the union reports' categories.
  static constexpr int style_count = 5;
  static constexpr int kernel_style = 3, api_style = 4;
  static constexpr std::array<std::string_view, style_count> style_names = {
      "", "PushPop", "StartEnd", "CUDA_KERNEL", "CUDA_API"};

  std::uint32_t by_name(string_id name, int style) {
    auto& slot =
        _by_name[static_cast<std::size_t>(name) * style_count + static_cast<std::size_t>(style)];
    if (slot == no_key) {
      std::string_view n = _t.strings().at(name);
      if (_r == stats_report::cuda_api_sum || style == api_style) n = strip_api_version(n);
      slot = _keys.id(std::string(n), style_names[static_cast<std::size_t>(style)]);
    }
    return slot;
  }
  /// The category of memory operations: only the union reports have one.
  [[nodiscard]] std::string_view memory_style() const {
    bool const united = _r == stats_report::cuda_gpu_sum || _r == stats_report::cuda_api_gpu_sum;
    return united ? "MEMORY_OPER" : "";
  }
  std::uint32_t by_subkind(std::uint8_t copy) {
    auto& slot = _by_subkind[copy];
    if (slot == no_key)
      slot = _keys.id("[CUDA memcpy " + std::string(memcpy_label(copy)) + "]", memory_style());
    return slot;
  }
  /// ":nvtx-name": "RANGE/KERNEL" with the innermost range around the launching call.
  std::uint32_t by_range_and_name(std::size_t i) {
    auto const r = _innermost[i];
    std::string name(_t.strings().at(_t.name[i]));
    if (r >= 0)
      name = std::string(_t.strings().at(_t.name[static_cast<std::size_t>(r)]))
                 .append("/")
                 .append(name);
    return _keys.id(name, "");
  }
  std::uint32_t by_launch(std::size_t i) {
    std::pair<std::string, std::string> launch;
    if (auto const k = _detail[i]; k >= 0) {
      auto const& d = _t.launch_details.at(static_cast<std::size_t>(k));
      launch = {stats::launch_dimensions(d.grid), stats::launch_dimensions(d.block)};
    }
    return _keys.id(std::string(_t.strings().at(_t.name[i])), "", launch);
  }
  std::uint32_t by_memset() {
    if (_memset == no_key) _memset = _keys.id("[CUDA memset]", memory_style());
    return _memset;
  }

  event_table const& _t;
  stats_report _r;
  key_space _keys;
  std::vector<std::uint32_t> _by_name;
  std::array<std::uint32_t, 256> _by_subkind;
  std::uint32_t _memset = no_key;
  std::vector<std::int64_t> _detail;     ///< gb_sum: each row's launch_details index, or -1
  std::vector<std::int64_t> _innermost;  ///< kern_sum by NVTX range: each row's range, or -1
};

stats_table finish(stats_report report, std::string source, std::vector<exact_stats> const& stats,
                   key_space const& keys) {
  stats_table out{report, std::move(source), {}};
  int128 grand = 0;
  for (auto const& s : stats) grand += s.sum;
  for (auto const& s : stats) {
    auto const d = derive_stats(s, {});
    stats_row row;
    row.total = narrow_sum(s.sum, "a total of the report");
    row.count = static_cast<std::int64_t>(s.count);
    row.time_percent = grand > 0 ? static_cast<double>(static_cast<long double>(s.sum) * 100.0L /
                                                       static_cast<long double>(grand))
                                 : 0.0;
    row.avg = d.mean;
    row.median = d.median;
    row.stddev = d.stddev;
    row.min = s.min;
    row.max = s.max;
    row.name = keys.name(s.key);
    row.style = keys.style(s.key);
    std::tie(row.grid, row.block) = keys.launch(s.key);
    out.rows.push_back(std::move(row));
  }
  std::sort(out.rows.begin(), out.rows.end(), [](stats_row const& a, stats_row const& b) {
    if (a.total != b.total) return a.total > b.total;
    if (a.count != b.count) return a.count > b.count;
    return std::tie(a.name, a.style, a.grid, a.block) < std::tie(b.name, b.style, b.grid, b.block);
  });
  return out;
}

}  // namespace

std::string_view strip_api_version(std::string_view name) noexcept {
  auto const n = name.size();
  if (n >= 6 && name[n - 6] == '_' && name[n - 5] == 'v') return name.substr(0, n - 6);
  return name;
}

std::vector<stats_table> compute_stats_report(trace_model const& model, backend& be,
                                              stats_report report, bool merge, bool nvtx_name) {
  auto const& table = model.table();
  std::size_t const groups = merge ? 1 : table.inputs().size();
  std::vector<std::vector<exact_stats>> stats(groups);
  row_keyer keyer(table, report);
  key_space kernel_keys;
  bool const by_range = report == stats_report::cuda_gpu_kern_sum && nvtx_name;
  if (by_range) keyer.name_by_nvtx_range(stats::innermost_nvtx_range(model));
  if (report == stats_report::cuda_gpu_kern_sum && !by_range) {
    kernel_selection selection;
    selection.grouping = merge ? kernel_grouping::job : kernel_grouping::input;
    for (auto& k : compute_kernel_stats(model, be, selection)) {
      k.stats.key = kernel_keys.id(std::string(table.strings().at(k.name)), "");
      stats[k.group].push_back(std::move(k.stats));
    }
  } else {
    std::vector<std::vector<std::uint32_t>> keys(groups);
    std::vector<std::vector<std::int64_t>> values(groups);
    for (std::size_t i = 0; i < table.size(); ++i) {
      auto const k = keyer.key(i);
      if (k == no_key) continue;
      auto const g = merge ? 0 : static_cast<std::size_t>(table.input_of(i));
      keys[g].push_back(k);
      values[g].push_back(keyer.value(i));
    }
    for (std::size_t g = 0; g < groups; ++g)
      if (!keys[g].empty()) stats[g] = be.segmented_stats(keys[g], values[g], {});
  }
  auto const& labels =
      report == stats_report::cuda_gpu_kern_sum && !by_range ? kernel_keys : keyer.keys();
  std::vector<stats_table> out;
  for (std::size_t g = 0; g < groups; ++g)
    out.push_back(finish(report, merge ? std::string("all inputs") : table.inputs()[g].path,
                         stats[g], labels));
  return out;
}

}  // namespace tracesweep
