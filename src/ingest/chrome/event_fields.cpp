// SPDX-License-Identifier: Apache-2.0
// One trace event's fields read from its JSON object (event_fields.hpp).
#include "ingest/chrome/event_fields.hpp"

#include <array>
#include <string>
#include <utility>

#include "ingest/chrome/decimal_time.hpp"

namespace tracesweep::chrome {

namespace od = simdjson::ondemand;

bool integer_text(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    if (s.size() > 17) return false;
    std::int64_t value = 0;
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
    out = value;
    return true;
  }
  return is_json_integer(s) && decimal_to_scaled_int(s, 0, out) == number_status::ok;
}

namespace {

/// Whether a raw JSON token (a value as written, maybe followed by blanks) is "[memory]".
bool is_memory_name(std::string_view token) {
  return trimmed_token(token) == "\"[memory]\"";
}

/// The type of a value the reader interprets, with its syntax checked where On-Demand leaves it
/// to the consumer: numbers (strict RFC 8259 grammar) and the atoms null, true, false. On an
/// error `at` is where the value starts.
simdjson::error_code checked_type(od::value& v, od::json_type& type, char const*& at) {
  std::string_view const token = v.raw_json_token();
  at = token.data();
  if (auto e = v.type().get(type)) return e;
  switch (type) {
    case od::json_type::number:
      return is_json_number(token) ? simdjson::SUCCESS : simdjson::NUMBER_ERROR;
    case od::json_type::null: {
      bool null = false;
      return v.is_null().get(null) || !null ? simdjson::N_ATOM_ERROR : simdjson::SUCCESS;
    }
    case od::json_type::boolean: {
      bool b = false;
      if (v.get_bool().get(b))
        return token[0] == 't' ? simdjson::T_ATOM_ERROR : simdjson::F_ATOM_ERROR;
      return simdjson::SUCCESS;
    }
    default:
      return simdjson::SUCCESS;
  }
}

/// A real-valued arg: a JSON number (integer or not). Anything else leaves `out` unchanged.
simdjson::error_code read_real(od::value& v, double& out, char const*& at) {
  od::json_type type;
  if (auto e = checked_type(v, type, at)) return e;
  double d = 0;
  if (type == od::json_type::number && !v.get_double().get(d)) out = d;
  return simdjson::SUCCESS;
}

/// An integer arg: a JSON integer, or a string holding a decimal or 0x-hex integer. `found`
/// tells whether it was one; a value of another type or range leaves it false.
simdjson::error_code read_integer(od::value& v, std::int64_t& out, bool& found, char const*& at) {
  if (short_json_integer(v.raw_json_token(), out)) return found = true, simdjson::SUCCESS;
  found = false;
  od::json_type type;
  if (auto e = checked_type(v, type, at)) return e;
  if (type == od::json_type::number) {
    std::int64_t i = 0;
    if (!v.get_int64().get(i)) {
      out = i;
      found = true;
      return simdjson::SUCCESS;
    }
    double d = 0;  // e.g. 7.0 from a re-writer: accept exact integers only
    // The range first: casting a double outside int64 to int64 is undefined.
    if (!v.get_double().get(d) && d >= -9.0e18 && d <= 9.0e18 &&
        d == static_cast<double>(static_cast<std::int64_t>(d))) {
      out = static_cast<std::int64_t>(d);
      found = true;
    }
    return simdjson::SUCCESS;
  }
  if (type == od::json_type::string) {
    std::string_view s;
    if (auto e = v.get_string().get(s)) return e;
    found = integer_text(s, out);
  }
  return simdjson::SUCCESS;
}

/// Calls `read(item)` for each item of `v` when it is an array (anything else: none).
template <class Read>
simdjson::error_code for_each_item(od::value& v, char const*& at, Read&& read) {
  od::json_type type;
  if (auto e = checked_type(v, type, at)) return e;
  if (type != od::json_type::array) return simdjson::SUCCESS;
  od::array items;
  if (auto e = v.get_array().get(items)) return e;
  for (auto item : items) {
    od::value x;
    if (auto e = item.get(x)) return e;
    if (auto e = read(x)) return e;
  }
  return simdjson::SUCCESS;
}

/// A launch dimension arg ("grid", "block"): an array of three integers in [0, 2^31). Anything
/// else leaves `out` at -1 (its syntax still checked).
simdjson::error_code read_dims(od::value& v, std::array<std::int32_t, 3>& out, char const*& at) {
  std::array<std::int32_t, 3> dims{-1, -1, -1};
  std::size_t n = 0;
  bool valid = true;
  auto const e = for_each_item(v, at, [&](od::value& x) {
    std::int64_t i = -1;
    bool found = false;
    if (auto e = read_integer(x, i, found, at)) return e;
    valid = valid && found && i >= 0 && i <= std::numeric_limits<std::int32_t>::max() && n < 3;
    if (valid) dims[n] = static_cast<std::int32_t>(i);
    ++n;
    return simdjson::SUCCESS;
  });
  if (!e && valid && n == 3) out = dims;
  return e;
}

/// `ts` or `dur`: a number (its raw token, converted to ns at once when the fast path takes it),
/// null (absent), or a value of another type.
simdjson::error_code read_time(od::value& v, time_field& out, char const*& at) {
  out.token = v.raw_json_token();
  if (fast_microseconds_to_ns(out.token, out.ns)) {
    out.state = presence::number, out.converted = true;
    return simdjson::SUCCESS;
  }
  out.converted = false;  // a repeated key: the last value counts
  od::json_type type;
  if (auto e = checked_type(v, type, at)) return e;
  out.state = type == od::json_type::null     ? presence::absent
              : type == od::json_type::number ? presence::number
                                              : presence::other;
  return simdjson::SUCCESS;
}

/// The text of a string token without escapes (`"cpu_op"` and the blanks after it, as a raw
/// token carries them): the bytes between its quotes, which stage 1 has checked (UTF-8, no
/// control bytes). False for any other token. `backslash_free`: the text around the token is
/// known to hold no backslash (event_chunk::backslash_free), so the text is not searched for one.
bool unescaped_string(std::string_view token, std::string_view& out, bool backslash_free) {
  token = trimmed_token(token);
  if (token.size() < 2 || token.front() != '"' || token.back() != '"') return false;
  auto const text = token.substr(1, token.size() - 2);
  if (!backslash_free && text.find('\\') != std::string_view::npos) return false;
  out = text;
  return true;
}

/// A string field (`ph`, `cat`, `name`): its text when it is a string, else left as it is.
/// `backslash_free` as unescaped_string takes it.
simdjson::error_code read_text(od::value& v, std::string_view& out, char const*& at,
                               bool backslash_free = false) {
  if (unescaped_string(v.raw_json_token(), out, backslash_free)) return simdjson::SUCCESS;
  od::json_type type;
  if (auto e = checked_type(v, type, at)) return e;
  return type == od::json_type::string ? v.get_string().get(out) : simdjson::SUCCESS;
}

/// Calls `read(key, value)` for each field of `obj` until it fails or sets `stop`.
template <class Read>
simdjson::error_code for_each_field(od::object& obj, bool const& stop, Read&& read) {
  for (auto field_result : obj) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) return e;
    if (auto e = read(field.key(), field.value())) return e;
    if (stop) break;
  }
  return simdjson::SUCCESS;
}

/// A `[memory]` event's args: Kineto's Bytes, Total Allocated, Total Reserved, Device Id,
/// Device Type; Paddle's increase_bytes, current_allocated, current_reserved, place. Any other
/// key is left unread.
simdjson::error_code read_memory_arg(od::raw_json_string k, od::value& a, event_fields& f) {
  auto& at = f.fault_at;
  if (k == "increase_bytes") return read_integer(a, f.increase_bytes, f.has_increase_bytes, at);
  if (k == "current_allocated")
    return read_integer(a, f.current_allocated, f.has_current_allocated, at);
  if (k == "current_reserved")
    return read_integer(a, f.current_reserved, f.has_current_reserved, at);
  if (k == "place") return read_text(a, f.place, at);
  if (k == "Bytes") return read_integer(a, f.memory_bytes, f.has_memory_bytes, at);
  if (k == "Total Allocated") return read_integer(a, f.total_allocated, f.has_total_allocated, at);
  if (k == "Total Reserved") return read_integer(a, f.total_reserved, f.has_total_reserved, at);
  if (k == "Device Id") return read_integer(a, f.memory_device, f.has_memory_device, at);
  if (k == "Device Type")
    return read_integer(a, f.memory_device_type, f.has_memory_device_type, at);
  return simdjson::SUCCESS;
}

/// A count arg of a collective ("In msg nelems", …): an integer ≥ 0, else left at -1.
simdjson::error_code read_count(od::value& a, std::int64_t& out, char const*& at) {
  std::int64_t v = -1;
  bool found = false;
  if (auto e = read_integer(a, v, found, at)) return e;
  if (found && v >= 0) out = v;
  return simdjson::SUCCESS;
}

/// A collective kernel's args (Kineto: NCCL kernels); false when `k` is none of them (most keys
/// are rejected by their first letter).
bool read_collective_arg(od::raw_json_string k, od::value& a, event_fields& f,
                         simdjson::error_code& e) {
  static constexpr std::array<std::pair<std::string_view, std::string_view event_fields::*>, 3>
      texts{{{"Collective name", &event_fields::collective},
             {"dtype", &event_fields::dtype},
             {"Process Group Name", &event_fields::process_group}}};
  static constexpr std::array<std::pair<std::string_view, std::int64_t event_fields::*>, 3> counts{
      {{"In msg nelems", &event_fields::in_elements},
       {"Out msg nelems", &event_fields::out_elements},
       {"Group size", &event_fields::group_size}}};
  if (std::string_view("CdPIOG").find(k.raw()[0]) == std::string_view::npos) return false;
  for (auto const& [key, member] : texts)
    if (k == key) return e = read_text(a, f.*member, f.fault_at), true;
  for (auto const& [key, member] : counts)
    if (k == key) return e = read_count(a, f.*member, f.fault_at), true;
  return false;
}

/// The element count of a shape [d0, d1, …] (their product; -1 when it is empty, holds other
/// than integers ≥ 0, or overflows). Its syntax is checked all the same.
simdjson::error_code read_shape_elements(od::value& v, std::int64_t& out, char const*& at) {
  out = -1;
  std::int64_t product = 1;
  bool valid = true, any = false;
  auto const e = for_each_item(v, at, [&](od::value& x) {
    std::int64_t d = -1;
    bool found = false;
    if (auto e = read_integer(x, d, found, at)) return e;
    valid = valid && found && d >= 0 && !__builtin_mul_overflow(product, d, &product);
    any = true;
    return simdjson::SUCCESS;
  });
  if (!e && valid && any) out = product;
  return e;
}

/// "Input Dims" ([[4, 8], [32], []]): the element counts of the first two shapes.
simdjson::error_code read_input_dims(od::value& v, std::array<std::int64_t, 2>& out,
                                     char const*& at) {
  std::size_t n = 0;
  return for_each_item(v, at, [&](od::value& x) {
    std::int64_t elements = -1;
    if (auto e = read_shape_elements(x, elements, at)) return e;
    if (n < out.size()) out[n++] = elements;
    return simdjson::SUCCESS;
  });
}

/// "Input type" (["float", "", …]): its first entry when that is a non-empty string.
simdjson::error_code read_first_type(od::value& v, std::string_view& out, char const*& at) {
  bool first = true;
  return for_each_item(v, at, [&](od::value& x) {
    std::string_view t;
    if (auto e = read_text(x, t, at)) return e;
    if (first && !t.empty()) out = t;
    first = false;
    return simdjson::SUCCESS;
  });
}

/// The name's collective operation when it is a host record of one ("nccl:all_reduce",
/// "c10d::_allgather_base_"), else empty.
std::string_view host_collective(std::string_view name) {
  for (std::string_view prefix : {"nccl:", "c10d::"})
    if (name.starts_with(prefix)) return name.substr(prefix.size());
  return {};
}

/// A host record's sizes as collective args: a `c10d::*_base_` op lists output then input, a
/// `nccl:*` annotation its input alone.
void take_host_collective(event_fields& f, std::string_view operation) {
  f.collective = operation;
  if (f.name.starts_with("c10d::") && operation.ends_with("_base_")) {
    f.out_elements = f.input_elements[0];
    f.in_elements = f.input_elements[1];
  } else if (f.name.starts_with("nccl:")) {
    f.in_elements = f.input_elements[0];
  }
}

/// A cuda_sync wait arg: an integer ≥ 0, else -1 (absent, negative or not an integer).
simdjson::error_code read_wait_arg(od::value& v, std::int64_t& out, char const*& at) {
  bool found = false;
  auto const e = read_integer(v, out, found, at);
  if (!found || out < 0) out = -1;
  return e;
}

/// The `args` object's fields the columns use.
simdjson::error_code read_args(od::value& v, event_fields& f) {
  od::json_type type;
  if (auto e = checked_type(v, type, f.fault_at)) return e;
  if (type != od::json_type::object) return simdjson::SUCCESS;
  od::object args;
  if (auto e = v.get_object().get(args)) return e;
  bool const never = false;
  auto const operation = host_collective(f.name);
  auto const read = for_each_field(args, never, [&](od::raw_json_string k, od::value& a) {
    auto& at = f.fault_at;
    simdjson::error_code e = simdjson::SUCCESS;
    if (!operation.empty() && k == "Input Dims") {
      e = read_input_dims(a, f.input_elements, at);
    } else if (!operation.empty() && k == "Input type") {
      e = read_first_type(a, f.dtype, at);
    } else if (k == "device") {
      e = read_integer(a, f.device, f.has_device, at);
    } else if (k == "stream") {
      od::json_type stream_type;
      e = checked_type(a, stream_type, at);
      f.stream_is_number = stream_type == od::json_type::number;
      if (!e) e = read_integer(a, f.stream, f.has_stream, at);
    } else if (k == "correlation" || k == "correlation id") {
      e = read_integer(a, f.correlation, f.has_correlation, at);
    } else if (k == "bytes") {
      bool found = false;
      e = read_integer(a, f.bytes, found, at);
      if (!found) f.bytes = 0;
    } else if (k == "blocks per SM") {
      e = read_real(a, f.blocks_per_sm, at);
    } else if (k == "grid") {
      e = read_dims(a, f.grid, at);
    } else if (k == "block") {
      e = read_dims(a, f.block, at);
    } else if (k == "est. achieved occupancy %") {
      e = read_real(a, f.est_occupancy, at);
    } else if (k == "theoretical achieved occupancy %") {
      e = read_real(a, f.theoretical_occupancy, at);
    } else if (k == "wait_on_stream") {
      e = read_wait_arg(a, f.wait_stream, at);
    } else if (k == "wait_on_cuda_event_record_corr_id") {
      e = read_wait_arg(a, f.wait_record_correlation, at);
    } else if (!read_collective_arg(k, a, f, e)) {
      e = read_memory_arg(k, a, f);
    }
    return e;
  });
  if (!read && !operation.empty()) take_host_collective(f, operation);
  return read;
}

}  // namespace

simdjson::error_code read_event(od::object& obj, event_fields& f, bool backslash_free) {
  bool not_complete = false;  // ph is neither "X" nor "i": leave the rest of the event unread
  return for_each_field(obj, not_complete, [&](od::raw_json_string key, od::value& v) {
    auto& at = f.fault_at;
    simdjson::error_code e = simdjson::SUCCESS;
    switch (key.raw()[0]) {  // dispatch on the first byte: most keys are rejected at once
      case 'p':
        if (key == "ph") {
          if ((e = read_text(v, f.ph, at, backslash_free))) return e;
          // Complete events become rows and instant events may be memory events: leave the
          // rest of any other event unread.
          not_complete = f.ph != "X" && f.ph != "i";
        } else if (key == "pid") {
          e = read_integer(v, f.pid, f.pid_int, at);
        }
        break;
      case 't':
        if (key == "ts") {
          e = read_time(v, f.ts, at);
        } else if (key == "tid") {
          od::json_type type;
          if ((e = checked_type(v, type, at))) return e;
          f.tid_is_text = type == od::json_type::string;
          e = f.tid_is_text ? v.get_string().get(f.tid_text)
                            : read_integer(v, f.tid, f.tid_int, at);
        }
        break;
      case 'd':
        if (key == "dur") e = read_time(v, f.dur, at);
        break;
      case 'c':
        if (key == "cat") e = read_text(v, f.cat, at, backslash_free);
        break;
      case 'n':
        if (key == "name" && f.ph == "i")
          f.memory_name = is_memory_name(v.raw_json_token());
        else if (key == "name")
          e = read_text(v, f.name, at, backslash_free);
        break;
      case 'a':
        if (key == "args") e = read_args(v, f);
        break;
      default:
        break;
    }
    return e;
  });
}

}  // namespace tracesweep::chrome
