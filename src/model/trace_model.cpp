// SPDX-License-Identifier: Apache-2.0
// Building the trace model: producers and ranks from the inputs; on first use one pass over the
// rows (in chunks on the model's threads) for the dense device ids and the communication flags of
// the names kernels carry. The other parts are built on first use too (launch_links.cpp,
// steps.cpp, step_windows.cpp, nesting.cpp); communication.cpp holds the communication policies.
#include <tracesweep/model/trace_model.hpp>
#include <tracesweep/recent_keys.hpp>
#include <tracesweep/task_threads.hpp>

#include <algorithm>
#include <span>
#include <tuple>
#include <unordered_map>

#include "model/model_parts.hpp"

namespace tracesweep {

namespace {

struct device_key_hash {
  std::size_t operator()(device_identity const& k) const noexcept {
    auto h = static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.input));
    h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(k.rank);
    h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(k.device);
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};
struct device_key_equal {
  bool operator()(device_identity const& a, device_identity const& b) const noexcept {
    return a.input == b.input && a.rank == b.rank && a.device == b.device;
  }
};

}  // namespace

producer producer_of_format(std::string_view format) noexcept {
  if (format == "nsys-sqlite") return producer::nsys;
  if (format == "kineto-json") return producer::kineto;
  if (format == "paddle-json") return producer::paddle;
  return producer::other;
}

std::size_t trace_model::ranks_lookup(std::int32_t rank) const noexcept {
  auto const it = std::lower_bound(_ranks.begin(), _ranks.end(), rank);
  return it != _ranks.end() && *it == rank ? static_cast<std::size_t>(it - _ranks.begin())
                                           : _ranks.size();
}

trace_model::~trace_model() = default;
trace_model::trace_model(trace_model&&) noexcept = default;

bool trace_model::rank_has_producer(std::int32_t rank, producer p) const {
  auto const& inputs = _table.inputs();
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (_producers[i] == p &&
        std::binary_search(inputs[i].ranks.begin(), inputs[i].ranks.end(), rank))
      return true;
  return false;
}

trace_model::devices_part const& trace_model::device_part() const {
  std::call_once(_lazy->devices_once, [&] {
    _lazy->devices = std::make_unique<devices_part>(_table, _comm_regex, _threads);
  });
  return *_lazy->devices;
}

trace_model::links_part const& trace_model::links() const {
  std::call_once(_lazy->links_once, [&] { _lazy->links = std::make_unique<links_part>(*this); });
  return *_lazy->links;
}

trace_model::call_times_part const& trace_model::call_times() const {
  std::call_once(_lazy->call_times_once,
                 [&] { _lazy->call_times = std::make_unique<call_times_part>(*this); });
  return *_lazy->call_times;
}

trace_model::steps_part const& trace_model::step_part() const {
  std::call_once(_lazy->steps_once, [&] { _lazy->steps = std::make_unique<steps_part>(*this); });
  return *_lazy->steps;
}

trace_model::step_names_part const& trace_model::step_names() const {
  std::call_once(_lazy->step_names_once, [&] {
    _lazy->step_names =
        std::make_unique<step_names_part>(_table, _step_regex ? &*_step_regex : nullptr);
  });
  return *_lazy->step_names;
}

trace_model::step_windows_part const& trace_model::windows() const {
  std::call_once(_lazy->windows_once,
                 [&] { _lazy->windows = std::make_unique<step_windows_part>(*this); });
  return *_lazy->windows;
}

trace_model::nesting_part const& trace_model::nesting() const {
  std::call_once(_lazy->nesting_once,
                 [&] { _lazy->nesting = std::make_unique<nesting_part>(_table); });
  return *_lazy->nesting;
}

trace_model::trace_model(event_table const& table, model_options const& options)
    : _table(table),
      _comm_regex(options.comm_pattern),
      _host_comm_regex(options.host_comm_pattern),
      _threads(resolve_threads(options.threads)),
      _lazy(std::make_unique<lazy_parts>()) {
  if (!options.step_pattern.empty()) _step_regex = name_regex::whole_name(options.step_pattern);
  for (auto const& info : table.inputs()) {
    _producers.push_back(producer_of_format(info.format));
    _has_paddle = _has_paddle || _producers.back() == producer::paddle;
    _ranks.insert(_ranks.end(), info.ranks.begin(), info.ranks.end());
  }
  std::sort(_ranks.begin(), _ranks.end());
  _ranks.erase(std::unique(_ranks.begin(), _ranks.end()), _ranks.end());
  _consecutive_ranks =
      !_ranks.empty() && std::int64_t{_ranks.back()} - std::int64_t{_ranks.front()} + 1 ==
                             static_cast<std::int64_t>(_ranks.size());
}

namespace {

/// Provisional device ids in order of first sight: (rank, device) keys of an input small enough
/// (a rank below 1024, a device below 64, as nearly all are) by direct index, any other through
/// a memo of the keys seen lately and a hash map. Rows of a few devices come in runs (Kineto) or
/// interleaved (nsys tables in start order): either way a row costs an index or a memo look-up.
class provisional_device_ids {
 public:
  std::vector<device_identity> seen;  ///< by provisional id

  /// Starts input `k`: the direct slots of the input before are forgotten.
  void begin_input(std::int32_t k) {
    for (auto const at : _filled) _direct[at] = unknown;
    _filled.clear();
    _input = k;
  }
  group_id operator()(std::int32_t rank, std::int32_t device) {
    bool const small = rank >= 0 && rank < max_rank && device >= 0 && device < max_device;
    auto const at =
        small ? static_cast<std::size_t>(rank) * max_device + static_cast<std::size_t>(device) : 0;
    if (small && _direct[at] != unknown) return _direct[at];
    auto const id = looked_up({_input, rank, device});
    if (small) _direct[at] = id, _filled.push_back(at);
    return id;
  }

 private:
  static constexpr std::int32_t max_rank = 1024, max_device = 64;
  static constexpr group_id unknown = no_device;
  group_id looked_up(device_identity const& k) {
    if (auto const* known = _recent.find(k)) return *known;
    auto [it, fresh] = _ids.try_emplace(k, static_cast<group_id>(seen.size()));
    if (fresh) seen.push_back(k);
    _recent.put(k, it->second);
    return it->second;
  }
  std::int32_t _input = 0;
  std::vector<group_id> _direct =
      std::vector<group_id>(std::size_t{max_rank} * max_device, unknown);
  std::vector<std::size_t> _filled;
  std::unordered_map<device_identity, group_id, device_key_hash, device_key_equal> _ids;
  recent_keys<device_identity, group_id, device_key_hash, device_key_equal> _recent;
};

/// The provisional ids of the device rows in [first, end) (by the chunk's own first sight), the
/// keys they stand for, and which names kernels carry.
struct device_chunk {
  provisional_device_ids ids;
  std::vector<std::uint8_t> kernel_name;  ///< per string id
};

/// Writes group[i] for every row i in [first, end): its provisional device id, or no_device.
void scan_device_rows(event_table const& table, std::size_t first, std::size_t end,
                      std::span<group_id> group, device_chunk& out) {
  out.kernel_name.assign(table.strings().size(), 0);
  std::size_t next_input = first;  // the row where the input (input_of) changes next
  for (std::size_t i = first; i < end; ++i) {
    if (i == next_input) {
      auto const k = table.input_of(i);
      out.ids.begin_input(k);
      auto const later = static_cast<std::size_t>(k + 1);
      next_input = later < table.inputs().size() ? table.input_rows(later).first : table.size();
    }
    if (!is_device_activity(table.kind[i])) {
      group[i] = no_device;
      continue;
    }
    if (table.kind[i] == event_kind::kernel) out.kernel_name[table.name[i]] = 1;
    group[i] = out.ids(table.rank[i], table.device[i]);
  }
}

}  // namespace

trace_model::devices_part::devices_part(event_table const& table, name_regex const& comm_regex,
                                        unsigned threads) {
  // Dense device ids: provisional per chunk of rows in order of first sight, then renumbered by
  // (rank, device, input) over the keys of all chunks.
  device_group.resize(table.size());  // each chunk writes all of its rows
  item_chunks const chunks(0, table.size(), threads, std::size_t{1} << 16);
  std::vector<device_chunk> parts(chunks.workers);
  run_workers(chunks.workers, [&](unsigned w) {
    auto const [first, end] = chunks[w];
    scan_device_rows(table, first, end, device_group, parts[w]);
  });
  auto const key_less = [](device_identity const& a, device_identity const& b) {
    return std::tie(a.rank, a.device, a.input) < std::tie(b.rank, b.device, b.input);
  };
  for (auto const& p : parts) devices.insert(devices.end(), p.ids.seen.begin(), p.ids.seen.end());
  std::sort(devices.begin(), devices.end(), key_less);
  devices.erase(std::unique(devices.begin(), devices.end(), device_key_equal{}), devices.end());
  run_workers(chunks.workers, [&](unsigned w) {
    auto const& seen = parts[w].ids.seen;
    std::vector<group_id> final_id(seen.size());
    for (std::size_t p = 0; p < seen.size(); ++p)
      final_id[p] = static_cast<group_id>(
          std::lower_bound(devices.begin(), devices.end(), seen[p], key_less) - devices.begin());
    auto const [first, end] = chunks[w];
    for (std::size_t i = first; i < end; ++i)
      if (device_group[i] != no_device) device_group[i] = final_id[device_group[i]];
  });
  communication.assign(table.strings().size(), 0);
  for (std::size_t id = 0; id < communication.size(); ++id) {
    bool const kernel = std::any_of(parts.begin(), parts.end(),
                                    [&](device_chunk const& p) { return p.kernel_name[id] != 0; });
    if (kernel)
      communication[id] =
          comm_regex.matches(table.strings().at(static_cast<string_id>(id))) ? 1 : 0;
  }
}

std::span<device_identity const> trace_model::devices() const {
  return device_part().devices;
}

std::span<group_id const> trace_model::device_group() const {
  return device_part().device_group;
}

bool trace_model::is_communication(string_id name) const {
  return names_communication(device_part().communication, name);
}

std::span<std::uint8_t const> trace_model::communication_names() const {
  return device_part().communication;
}

}  // namespace tracesweep
