// SPDX-License-Identifier: Apache-2.0
// Display labels of nsys enum values (memcpy direction, synchronization type): from the
// export's ENUM_* tables when present, built-in labels (the same text) when not.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <tracesweep/string_pool.hpp>

#include "ingest/nsys/nsys_schema.hpp"
#include "ingest/nsys/sqlite_db.hpp"

namespace tracesweep::nsys {

class nsys_labels {
 public:
  nsys_labels(connection& db, export_schema const& schema);

  /// "[CUDA memcpy Host-to-Device]" and the like.
  [[nodiscard]] string_id memcpy_name(std::uint8_t copy_kind, string_pool& pool) const;
  /// "Stream sync" and the like.
  [[nodiscard]] string_id sync_name(std::uint8_t sync_type, string_pool& pool) const;

 private:
  std::array<std::string, 256> _memcpy;
  std::array<std::string, 256> _sync;
  mutable std::array<string_id, 256> _memcpy_ids;
  mutable std::array<string_id, 256> _sync_ids;
};

}  // namespace tracesweep::nsys
