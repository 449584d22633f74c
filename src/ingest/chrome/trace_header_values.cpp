// SPDX-License-Identifier: Apache-2.0
// The top-level values of a trace the Chrome reader uses besides its events (distributedInfo,
// baseTimeNanoseconds, ExtraInfo, deviceProperties, schemaVersion), read into the trace header.
#include "ingest/chrome/event_splitter.hpp"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/chrome/decimal_time.hpp"

namespace tracesweep::chrome {

namespace {

/// A utilization Paddle wrote as a string ("0.85") or a number; nullopt when it is neither.
std::optional<double> utilization_value(simdjson::ondemand::value v) {
  std::string_view text;
  if (v.get_string().get(text)) {
    double d = 0;
    if (v.get_double().get(d)) return std::nullopt;
    return d;
  }
  double d = 0;
  auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(d) || d < 0)
    return std::nullopt;
  return d;
}

/// Paddle's ExtraInfo: the CPU utilizations (anything else in it is not used).
void read_extra_info(simdjson::ondemand::document& doc, trace_header& header) {
  simdjson::ondemand::object obj;
  if (doc.get_object().get(obj)) return;  // not an object: nothing to learn
  for (auto field : obj) {
    std::string_view key;
    simdjson::ondemand::value value;
    if (field.unescaped_key().get(key) || field.value().get(value)) return;
    if (key == "Process Cpu Utilization") header.process_cpu_utilization = utilization_value(value);
    if (key == "System Cpu Utilization") header.system_cpu_utilization = utilization_value(value);
  }
}

/// An integer field of `obj` in [0, most], or -1 when absent or not such an integer.
std::int64_t whole_field(simdjson::dom::object obj, std::string_view key, std::int64_t most) {
  std::int64_t v = -1;
  if (obj[key].get_int64().get(v) || v < 0 || v > most) return -1;
  return v;
}

/// deviceProperties (Kineto; Paddle's CUDA builds): id, name, totalGlobalMem, numSms (Paddle:
/// smCount), computeMajor and computeMinor of each GPU. An entry without a usable id is left out.
/// Read with the DOM parser, which validates the whole value first: a value that is not JSON is
/// an error (false), and lookups on a valid one cannot go wrong.
bool read_device_properties(simdjson::padded_string const& json, trace_header& header) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json).get(root)) return false;
  simdjson::dom::array list;
  if (root.get_array().get(list)) return true;  // not an array: nothing to learn
  for (auto item : list) {
    simdjson::dom::object obj;
    if (item.get_object().get(obj)) continue;
    trace_header::device d;
    auto const id = whole_field(obj, "id", INT32_MAX);
    if (id < 0) continue;
    d.id = static_cast<std::int32_t>(id);
    std::string_view name;
    if (!obj["name"].get_string().get(name)) d.name = std::string(name);
    auto& p = d.properties;
    p.total_memory_bytes = whole_field(obj, "totalGlobalMem", std::int64_t{1} << 60);
    auto sms = whole_field(obj, "numSms", INT32_MAX);
    if (sms < 0) sms = whole_field(obj, "smCount", INT32_MAX);
    p.sm_count = static_cast<std::int32_t>(sms);
    p.compute_major = static_cast<std::int32_t>(whole_field(obj, "computeMajor", 1000));
    p.compute_minor = static_cast<std::int32_t>(whole_field(obj, "computeMinor", 1000));
    header.devices.push_back(std::move(d));
  }
  return true;
}

}  // namespace

void event_splitter::apply_header_value(std::string const& key, std::string const& text) {
  simdjson::padded_string json(text);
  simdjson::ondemand::parser parser;
  auto const offset = _base + _pos - text.size();
  auto bad = [&](std::string const& why) { fail(offset, key + ": " + why); };
  simdjson::ondemand::document doc;
  if (parser.iterate(json).get(doc)) bad("invalid JSON");
  if (key == "distributedInfo") {
    simdjson::ondemand::object obj;
    if (doc.get_object().get(obj)) return;  // not an object: nothing to learn
    simdjson::ondemand::value rank;
    auto const err = obj.find_field_unordered("rank").get(rank);
    if (err == simdjson::NO_SUCH_FIELD) return;
    if (err) bad("invalid JSON");
    std::int64_t r = 0;
    if (rank.get_int64().get(r) || r < 0 || r > INT32_MAX)
      bad("rank is not a non-negative 32-bit integer");
    _header.rank = static_cast<std::int32_t>(r);
  } else if (key == "baseTimeNanoseconds") {
    std::string_view token;
    simdjson::ondemand::json_type type;
    if (doc.type().get(type) || type != simdjson::ondemand::json_type::number ||
        doc.raw_json_token().get(token))
      bad("not a number");
    std::int64_t base = 0;
    if (!is_json_number(token)) bad("invalid JSON: bad number");
    if (!is_json_integer(token) || decimal_to_scaled_int(token, 0, base) != number_status::ok)
      bad("not an integer number of nanoseconds that fits in 64 bits");
    _header.base_time_ns = base;
  } else if (key == "ExtraInfo") {
    read_extra_info(doc, _header);
  } else if (key == "deviceProperties") {
    if (!read_device_properties(json, _header)) bad("invalid JSON");
  } else if (key == "schemaVersion") {
    simdjson::ondemand::json_type type;
    if (!doc.type().get(type) && type == simdjson::ondemand::json_type::string) {
      _header.schema_version_is_string = true;
      if (!_seen_events) _header.schema_version_seen_before_events = true;
    }
  }
}

}  // namespace tracesweep::chrome
