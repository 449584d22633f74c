// SPDX-License-Identifier: Apache-2.0
#include "ingest/chrome/event_classifier.hpp"

#include <array>
#include <limits>

#include "ingest/chrome/json_space.hpp"

namespace tracesweep::chrome {

namespace {

constexpr char ascii_lower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

struct category_entry {
  std::string_view cat;
  category_info info;
};

constexpr category_info host(event_kind k, bool name_rules = false) {
  return category_info{k, false, false, name_rules};
}
constexpr category_info device(event_kind k) {
  return category_info{k, true, false, false};
}
constexpr category_info paddle(event_kind k) {
  return category_info{k, false, true, false};
}
constexpr category_info paddle_phase(event_kind k) {
  auto info = paddle(k);
  info.family = category_role::phase;
  return info;
}

constexpr std::array category_table{
    // Kineto (ActivityType.h names) and the 2021 schema's capitalised names.
    category_entry{"kernel", device(event_kind::kernel)},
    category_entry{"Kernel", device(event_kind::kernel)},
    category_entry{"gpu_memcpy", device(event_kind::memcpy)},
    category_entry{"Memcpy", device(event_kind::memcpy)},
    category_entry{"gpu_memset", device(event_kind::memset)},
    category_entry{"Memset", device(event_kind::memset)},
    category_entry{"cuda_runtime", host(event_kind::api_call)},
    category_entry{"cuda_driver", host(event_kind::api_call)},
    category_entry{"Runtime", host(event_kind::api_call)},
    category_entry{"cuda_sync", device(event_kind::synchronization)},
    category_entry{"cpu_op", host(event_kind::cpu_op, true)},
    category_entry{"Operator", host(event_kind::cpu_op, true)},
    category_entry{"user_annotation", host(event_kind::user_range, true)},
    category_entry{"gpu_user_annotation", device(event_kind::user_range)},
    category_entry{"python_function", host(event_kind::other, true)},
    // PaddlePaddle (TracerEventType names). Kernel/Memcpy/Memset/Operator are shared above.
    category_entry{"ProfileStep", paddle_phase(event_kind::profiler_step)},
    category_entry{"Dataloader", paddle_phase(event_kind::data_loader)},
    category_entry{"Forward", paddle_phase(event_kind::forward)},
    category_entry{"Backward", paddle_phase(event_kind::backward)},
    category_entry{"Optimization", paddle_phase(event_kind::optimizer)},
    category_entry{"OperatorInner", paddle(event_kind::cpu_op)},
    category_entry{"PythonOp", paddle(event_kind::cpu_op)},
    category_entry{"Communication", paddle(event_kind::cpu_op)},  // host-side range (§1.8)
    category_entry{"CudaRuntime", paddle(event_kind::api_call)},
    category_entry{"UserDefined", paddle(event_kind::user_range)},
    category_entry{"PythonUserDefined", paddle(event_kind::user_range)},
};

bool equals_lower(std::string_view text, std::string_view lower) noexcept {
  if (text.size() != lower.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (ascii_lower(text[i]) != lower[i]) return false;
  return true;
}

/// The TensorBoard plugin's event types, from the category in any case.
category_role family_of(std::string_view cat) noexcept {
  if (equals_lower(cat, "cpu_op") || equals_lower(cat, "operator")) return category_role::op;
  if (equals_lower(cat, "python") || equals_lower(cat, "python_function"))
    return category_role::python;
  if (equals_lower(cat, "user_annotation") || equals_lower(cat, "gpu_user_annotation"))
    return category_role::annotation;
  if (equals_lower(cat, "cuda_runtime") || equals_lower(cat, "runtime"))
    return category_role::runtime;
  return category_role::none;
}

}  // namespace

category_info classify_category(std::string_view cat) noexcept {
  category_info info;
  for (auto const& e : category_table)
    if (e.cat == cat) {
      info = e.info;
      break;
    }
  if (info.family == category_role::none) info.family = family_of(cat);
  info.communication = cat == "Communication";
  info.communication_by_name = cat == "Operator";
  info.python_range = cat == "PythonUserDefined";
  return info;
}

bool is_communication_op_name(std::string_view name) noexcept {
  for (std::string_view part : {"allreduce", "broadcast", "rpc"})
    for (std::size_t i = 0; i + part.size() <= name.size(); ++i)
      if (equals_lower(name.substr(i, part.size()), part)) return true;
  return false;
}

std::optional<event_kind> kind_from_name(std::string_view name) noexcept {
  constexpr std::string_view step = "ProfilerStep#";
  if (name.starts_with(step)) {
    auto const digits = name.substr(step.size());
    if (digits.empty()) return std::nullopt;
    for (char c : digits)
      if (!is_ascii_digit(c)) return std::nullopt;
    return event_kind::profiler_step;
  }
  if (name.starts_with("enumerate(DataLoader)#")) return event_kind::data_loader;
  if (name.starts_with("Optimizer.step#")) return event_kind::optimizer;
  return std::nullopt;
}

copy_kind memcpy_kind_from_name(std::string_view name) noexcept {
  constexpr std::string_view prefix = "Memcpy ";
  if (!name.starts_with(prefix)) return copy_kind::unknown;
  auto const dir = name.substr(prefix.size(), 4);
  struct entry {
    std::string_view text;
    copy_kind kind;
  };
  constexpr std::array table{
      entry{"HtoD", copy_kind::host_to_device},  entry{"DtoH", copy_kind::device_to_host},
      entry{"HtoA", copy_kind::host_to_array},   entry{"AtoH", copy_kind::array_to_host},
      entry{"AtoA", copy_kind::array_to_array},  entry{"AtoD", copy_kind::array_to_device},
      entry{"DtoA", copy_kind::device_to_array}, entry{"DtoD", copy_kind::device_to_device},
      entry{"HtoH", copy_kind::host_to_host},    entry{"PtoP", copy_kind::peer_to_peer},
  };
  for (auto const& e : table)
    if (e.text == dir) return e.kind;
  return copy_kind::unknown;
}

std::string_view strip_paddle_duration_suffix(std::string_view name) noexcept {
  // "<name>[<digits>.<digits> <unit>]" or with a space before '['.
  if (name.size() < 6 || name.back() != ']') return name;
  auto const open = name.rfind('[');
  if (open == std::string_view::npos) return name;
  auto inner = name.substr(open + 1, name.size() - open - 2);
  auto const space = inner.find(' ');
  if (space == std::string_view::npos) return name;
  auto const number = inner.substr(0, space);
  auto const unit = inner.substr(space + 1);
  if (unit != "ms" && unit != "us" && unit != "ns" && unit != "s") return name;
  auto const dot = number.find('.');
  if (dot == 0 || dot == std::string_view::npos || dot + 1 == number.size()) return name;
  for (std::size_t i = 0; i < number.size(); ++i)
    if (i != dot && !is_ascii_digit(number[i])) return name;
  auto stripped = name.substr(0, open);
  while (!stripped.empty() && stripped.back() == ' ') stripped.remove_suffix(1);
  return stripped;
}

bool is_paddle_thread_id(std::string_view tid) noexcept {
  std::string_view rest;
  if (tid.ends_with("(Python)"))
    rest = tid.substr(0, tid.size() - 8);
  else if (tid.ends_with("(C++)"))
    rest = tid.substr(0, tid.size() - 5);
  else
    return false;
  if (rest.empty()) return false;
  for (char c : rest)
    if (!is_ascii_digit(c)) return false;
  return true;
}

std::optional<std::int64_t> integer_in_text(std::string_view text) noexcept {
  std::size_t i = 0;
  while (i < text.size() && !is_ascii_digit(text[i])) {
    char const c = text[i];
    bool const letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!letter && c != ' ') return std::nullopt;
    ++i;
  }
  if (i == text.size()) return std::nullopt;
  std::int64_t v = 0;
  for (; i < text.size() && is_ascii_digit(text[i]); ++i) {
    if (v > (std::numeric_limits<std::int64_t>::max() - 9) / 10) return std::nullopt;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

}  // namespace tracesweep::chrome
