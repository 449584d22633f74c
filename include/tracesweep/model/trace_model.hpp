// SPDX-License-Identifier: Apache-2.0
// The trace model: what every analysis reads besides the columns, derived once per job from the
// event table. Analyses take (model, backend) and derive none of this themselves.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tracesweep/event_table.hpp>
#include <tracesweep/intervals.hpp>
#include <tracesweep/model/comm_classifier.hpp>

namespace tracesweep {

/// Which profiler wrote an input; decided from the reader's format name once, here.
enum class producer : std::uint8_t { nsys, kineto, paddle, other };
[[nodiscard]] producer producer_of_format(std::string_view format) noexcept;

/// One GPU of the job: the identity behind a dense device id.
struct device_identity {
  std::int32_t input = 0;
  std::int32_t rank = 0;
  std::int32_t device = 0;
};

/// device_group() of a row that is not device activity.
inline constexpr group_id no_device = UINT32_MAX;

struct model_options {
  /// Regex searched case-insensitively in kernel names to mark communication (RE2 syntax).
  std::string comm_pattern = "nccl|rccl";
};

class trace_model {
 public:
  /// Derives the model from `table`, which must outlive it. Throws pattern_error when the
  /// communication pattern does not compile.
  trace_model(event_table const& table, model_options const& options = {});

  [[nodiscard]] event_table const& table() const noexcept { return _table; }

  /// The producer of input `input` / of row `row`.
  [[nodiscard]] producer input_producer(std::int32_t input) const {
    return _producers[static_cast<std::size_t>(input)];
  }
  [[nodiscard]] producer row_producer(std::size_t row) const {
    return input_producer(_table.input[row]);
  }

  /// Ranks present, ascending; rank_index(r) is r's position (ranks().size() when absent).
  [[nodiscard]] std::span<std::int32_t const> ranks() const noexcept { return _ranks; }
  [[nodiscard]] std::size_t rank_index(std::int32_t rank) const noexcept;

  /// GPUs with device activity, ordered by (rank, device, input); the index is the dense id.
  [[nodiscard]] std::span<device_identity const> devices() const noexcept { return _devices; }
  /// Dense device id of every row (no_device for rows that are not device activity).
  [[nodiscard]] std::span<group_id const> device_group() const noexcept { return _device_group; }

  /// Whether string `name` is a communication kernel name, per string id of the pool.
  [[nodiscard]] bool is_communication(string_id name) const noexcept {
    return name < _communication.size() && _communication[name] != 0;
  }
  [[nodiscard]] std::span<std::uint8_t const> communication_names() const noexcept {
    return _communication;
  }

 private:
  event_table const& _table;
  std::vector<producer> _producers;
  std::vector<std::int32_t> _ranks;
  std::vector<device_identity> _devices;
  std::vector<group_id> _device_group;
  std::vector<std::uint8_t> _communication;
};

}  // namespace tracesweep
