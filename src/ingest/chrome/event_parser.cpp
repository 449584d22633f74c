// SPDX-License-Identifier: Apache-2.0
#include "ingest/chrome/event_parser.hpp"

#include <tracesweep/error.hpp>

#include "ingest/chrome/decimal_time.hpp"
#include "ingest/chrome/event_classifier.hpp"

#include <cmath>
#include <limits>

namespace tracesweep::chrome {

namespace od = simdjson::ondemand;

std::string_view to_string(skip_reason r) noexcept {
  switch (r) {
    case skip_reason::missing_ts:
      return "missing_ts";
    case skip_reason::missing_dur:
      return "missing_dur";
    case skip_reason::negative_dur:
      return "negative_dur";
    case skip_reason::invalid_ts:
      return "invalid_ts";
    case skip_reason::invalid_dur:
      return "invalid_dur";
  }
  return "unknown";
}

void chunk_rows::clear() {
  start_ns.clear(), end_ns.clear(), kind.clear(), subkind.clear(), device.clear();
  stream.clear(), name.clear(), category.clear(), correlation.clear(), bytes.clear();
  role.clear();
  text_thread.clear();
  metric_row.clear(), blocks_per_sm.clear(), occupancy_pct.clear();
  strings = string_pool();
  skipped.fill(0);
  paddle = false;
}

namespace {

enum class presence : std::uint8_t { absent, number, other };

/// The fields of one event that the columns use.
struct event_fields {
  std::string_view ph, cat, name;
  std::string_view ts, dur;  ///< raw number tokens
  presence ts_state = presence::absent;
  presence dur_state = presence::absent;
  std::int64_t pid = 0;
  bool pid_int = false;
  std::int64_t tid = 0;
  bool tid_int = false;
  std::string_view tid_text;
  bool tid_is_text = false;
  std::int64_t device = -1, stream = -1, correlation = -1, bytes = 0;
  bool has_device = false, has_stream = false, has_correlation = false;
  // Launch metrics (kernels): Kineto's "est. achieved occupancy %", Paddle's "theoretical
  // achieved occupancy %" (used only when the "est." one is absent). NaN = absent.
  double blocks_per_sm = std::numeric_limits<double>::quiet_NaN();
  double est_occupancy = std::numeric_limits<double>::quiet_NaN();
  double theoretical_occupancy = std::numeric_limits<double>::quiet_NaN();
};

/// A real-valued arg: a JSON number (integer or not). Anything else leaves `out` unchanged.
void read_real(od::value& v, double& out) {
  od::json_type type;
  if (v.type().get(type) || type != od::json_type::number) return;
  double d = 0;
  if (!v.get_double().get(d)) out = d;
}

/// An integer arg: a JSON integer, or a string holding a decimal or 0x-hex integer.
bool read_integer(od::value& v, std::int64_t& out) {
  od::json_type type;
  if (v.type().get(type)) return false;
  if (type == od::json_type::number) {
    std::int64_t i = 0;
    if (!v.get_int64().get(i)) {
      out = i;
      return true;
    }
    double d = 0;  // e.g. 7.0 from a re-writer: accept exact integers only
    // The range first: casting a double outside int64 to int64 is undefined.
    if (!v.get_double().get(d) && d >= -9.0e18 && d <= 9.0e18 &&
        d == static_cast<double>(static_cast<std::int64_t>(d))) {
      out = static_cast<std::int64_t>(d);
      return true;
    }
    return false;
  }
  if (type == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s) || s.empty()) return false;
    std::int64_t value = 0;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      if (s.size() > 17) return false;
      for (char c : s.substr(2)) {
        int d = 0;
        if (c >= '0' && c <= '9')
          d = c - '0';
        else if (c >= 'a' && c <= 'f')
          d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
          d = c - 'A' + 10;
        else
          return false;
        value = value * 16 + d;
      }
      if (value < 0) return false;
      out = value;
      return true;
    }
    return decimal_to_scaled_int(s, 0, out) == number_status::ok &&
           s.find_first_of(".eE") == std::string_view::npos;
  }
  return false;
}

presence read_number_token(od::value& v, std::string_view& token) {
  od::json_type type;
  if (v.type().get(type)) return presence::other;
  if (type == od::json_type::null) return presence::absent;
  if (type != od::json_type::number) return presence::other;
  token = v.raw_json_token();
  return presence::number;
}

[[noreturn]] void fail_event(std::string const& path, std::uint64_t index, simdjson::error_code e) {
  throw input_error(path, "event " + std::to_string(index),
                    std::string("invalid JSON: ") + simdjson::error_message(e));
}

/// Reads the fields of one event object. Returns an error code from simdjson.
simdjson::error_code read_event(od::object& obj, event_fields& f) {
  for (auto field_result : obj) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) return e;
    auto const key = field.key();
    auto& v = field.value();
    switch (key.raw()[0]) {
      case 'p':
        if (key == "ph") {
          od::json_type type;
          if (auto e = v.type().get(type)) return e;
          if (type == od::json_type::string)
            if (auto e = v.get_string().get(f.ph)) return e;
          // Only complete events become rows: leave the rest of any other event unread.
          if (f.ph != "X") return simdjson::SUCCESS;
        } else if (key == "pid") {
          f.pid_int = read_integer(v, f.pid);
        }
        break;
      case 'c':
        if (key == "cat") {
          od::json_type type;
          if (auto e = v.type().get(type)) return e;
          if (type == od::json_type::string)
            if (auto e = v.get_string().get(f.cat)) return e;
        }
        break;
      case 'n':
        if (key == "name") {
          od::json_type type;
          if (auto e = v.type().get(type)) return e;
          if (type == od::json_type::string)
            if (auto e = v.get_string().get(f.name)) return e;
        }
        break;
      case 't':
        if (key == "ts") {
          f.ts_state = read_number_token(v, f.ts);
        } else if (key == "tid") {
          od::json_type type;
          if (auto e = v.type().get(type)) return e;
          if (type == od::json_type::string) {
            if (auto e = v.get_string().get(f.tid_text)) return e;
            f.tid_is_text = true;
          } else {
            f.tid_int = read_integer(v, f.tid);
          }
        }
        break;
      case 'd':
        if (key == "dur") f.dur_state = read_number_token(v, f.dur);
        break;
      case 'a':
        if (key == "args") {
          od::json_type type;
          if (auto e = v.type().get(type)) return e;
          if (type != od::json_type::object) break;
          od::object args;
          if (auto e = v.get_object().get(args)) return e;
          for (auto arg_result : args) {
            od::field arg;
            if (auto e = std::move(arg_result).get(arg)) return e;
            auto const k = arg.key();
            auto& a = arg.value();
            switch (k.raw()[0]) {
              case 'd':
                if (k == "device") f.has_device = read_integer(a, f.device);
                break;
              case 's':
                if (k == "stream") f.has_stream = read_integer(a, f.stream);
                break;
              case 'c':
                if (k == "correlation" || k == "correlation id")
                  f.has_correlation = read_integer(a, f.correlation);
                break;
              case 'b':
                if (k == "bytes") {
                  if (!read_integer(a, f.bytes)) f.bytes = 0;
                } else if (k == "blocks per SM") {
                  read_real(a, f.blocks_per_sm);
                }
                break;
              case 'e':
                if (k == "est. achieved occupancy %") read_real(a, f.est_occupancy);
                break;
              case 't':
                if (k == "theoretical achieved occupancy %") read_real(a, f.theoretical_occupancy);
                break;
              default:
                break;
            }
          }
        }
        break;
      default:
        break;
    }
  }
  return simdjson::SUCCESS;
}

/// Per-chunk memo of what a local string id classifies to.
struct name_memo {
  std::int8_t kind = -1;  ///< -1 unknown yet, -2 no kind from the name, else event_kind
  copy_kind copy = copy_kind::unknown;
  bool communication_op = false;  ///< is_communication_op_name
};

}  // namespace

void event_parser::parse(event_chunk const& chunk, bool paddle_schema, std::string const& path,
                         chunk_rows& out) {
  out.clear();
  auto const reserve = chunk.events;
  out.start_ns.reserve(reserve), out.end_ns.reserve(reserve), out.kind.reserve(reserve);
  out.subkind.reserve(reserve), out.device.reserve(reserve), out.stream.reserve(reserve);
  out.name.reserve(reserve), out.category.reserve(reserve), out.correlation.reserve(reserve);
  out.bytes.reserve(reserve), out.role.reserve(reserve);

  std::vector<std::int16_t> category_memo;  // local id → index into category_infos, -1 unknown
  std::vector<category_info> category_infos;
  std::vector<name_memo> names;

  od::document doc;
  simdjson::padded_string_view json(chunk.text.data(), chunk.length, chunk.text.size());
  if (auto e = _parser.iterate(json).get(doc)) fail_event(path, chunk.first_event, e);
  od::array events;
  if (auto e = doc.get_array().get(events)) fail_event(path, chunk.first_event, e);

  std::uint64_t index = chunk.first_event;
  for (auto element : events) {
    od::object obj;
    if (auto e = element.get_object().get(obj)) fail_event(path, index, e);
    event_fields f;
    if (auto e = read_event(obj, f)) fail_event(path, index, e);
    ++index;
    if (f.ph != "X") continue;  // instant, flow, counter, metadata, begin/end: not rows

    auto skip = [&](skip_reason r) { ++out.skipped[static_cast<int>(r)]; };
    if (f.ts_state == presence::absent) {
      skip(skip_reason::missing_ts);
      continue;
    }
    auto convert = [&](std::string_view token, std::int64_t& ns) {
      auto const status = microseconds_to_ns(token, ns);
      if (status == number_status::not_a_number)  // On-Demand leaves number syntax to us
        throw input_error(path, "event " + std::to_string(index - 1),
                          "invalid JSON: bad number '" + std::string(token) + "'");
      return status == number_status::ok;
    };
    std::int64_t start = 0;
    if (f.ts_state == presence::other || !convert(f.ts, start)) {
      skip(skip_reason::invalid_ts);
      continue;
    }
    if (f.dur_state == presence::absent) {
      skip(skip_reason::missing_dur);
      continue;
    }
    std::int64_t dur = 0;
    if (f.dur_state == presence::other || !convert(f.dur, dur)) {
      skip(skip_reason::invalid_dur);
      continue;
    }
    if (dur < 0) {
      skip(skip_reason::negative_dur);
      continue;
    }
    std::int64_t end = 0;
    if (__builtin_add_overflow(start, dur, &end)) {
      skip(skip_reason::invalid_dur);
      continue;
    }

    auto const cat_id = out.strings.intern(f.cat);
    if (cat_id >= category_memo.size()) category_memo.resize(cat_id + 1, -1);
    if (category_memo[cat_id] < 0) {
      category_memo[cat_id] = static_cast<std::int16_t>(category_infos.size());
      category_infos.push_back(classify_category(f.cat));
    }
    auto const& info = category_infos[static_cast<std::size_t>(category_memo[cat_id])];
    bool const paddle_event =
        info.paddle_only || (f.tid_is_text && is_paddle_thread_id(f.tid_text));
    out.paddle |= paddle_event;

    auto const name_text =
        paddle_event || paddle_schema ? strip_paddle_duration_suffix(f.name) : f.name;
    auto const name_id = out.strings.intern(name_text);
    if (name_id >= names.size()) names.resize(name_id + 1);
    auto& memo = names[name_id];
    if (memo.kind == -1) {
      auto const k = kind_from_name(name_text);
      memo.kind = k ? static_cast<std::int8_t>(*k) : std::int8_t{-2};
      memo.copy = memcpy_kind_from_name(name_text);
      memo.communication_op = is_communication_op_name(name_text);
    }

    event_kind kind = info.kind;
    if (info.name_rules && memo.kind >= 0) kind = static_cast<event_kind>(memo.kind);
    std::uint8_t subkind = 0;
    if (kind == event_kind::memcpy) subkind = static_cast<std::uint8_t>(memo.copy);

    std::int32_t device = -1;
    std::int64_t stream = -1;
    if (info.device_side) {
      std::int64_t d = -1;
      if (f.has_device)
        d = f.device;
      else if (f.pid_int)
        d = f.pid;
      if (d >= 0 && d <= std::numeric_limits<std::int32_t>::max())
        device = static_cast<std::int32_t>(d);
      if (f.has_stream) {
        stream = f.stream;
      } else if (f.tid_int) {
        stream = f.tid;
      } else if (f.tid_is_text) {
        if (auto s = integer_in_text(f.tid_text)) stream = *s;
      }
    } else if (f.tid_int) {
      stream = f.tid;
    } else if (f.tid_is_text) {
      std::optional<std::int64_t> leading;
      if (!f.tid_text.empty() && f.tid_text[0] >= '0' && f.tid_text[0] <= '9')
        leading = integer_in_text(f.tid_text);
      if (leading) {
        stream = *leading;
      } else {
        out.text_thread.emplace_back(static_cast<std::uint32_t>(out.size()),
                                     out.strings.intern(f.tid_text));
      }
    }

    if (kind == event_kind::kernel) {
      double const occupancy =
          std::isnan(f.est_occupancy) ? f.theoretical_occupancy : f.est_occupancy;
      if (!std::isnan(f.blocks_per_sm) || !std::isnan(occupancy)) {
        out.metric_row.push_back(static_cast<std::uint32_t>(out.size()));
        out.blocks_per_sm.push_back(f.blocks_per_sm);
        out.occupancy_pct.push_back(occupancy);
      }
    }

    out.start_ns.push_back(start);
    out.end_ns.push_back(end);
    out.kind.push_back(kind);
    out.subkind.push_back(subkind);
    out.device.push_back(device);
    out.stream.push_back(stream);
    out.name.push_back(name_id);
    out.category.push_back(cat_id);
    out.correlation.push_back(f.has_correlation ? f.correlation : -1);
    out.bytes.push_back(f.bytes);
    out.role.emplace_back(
        info.family, info.communication || (info.communication_by_name && memo.communication_op));
  }
}

}  // namespace tracesweep::chrome
