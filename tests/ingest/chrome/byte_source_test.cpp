// SPDX-License-Identifier: Apache-2.0
// Byte sources on bytes in memory: plain bytes as they are, gzip (several members) inflated by
// the same code as files, whatever the size of the raw reads, and gzip defects as input_error.
#include <gtest/gtest.h>

#include <tracesweep/error.hpp>

#include "ingest/chrome/byte_source.hpp"
#include "support/gzip_member.hpp"

#include <cstddef>
#include <span>
#include <string>

namespace tracesweep::chrome {
namespace byte_source_test {

/// Everything `source` gives, asked `piece` bytes at a time.
std::string read_all(byte_source& source, std::size_t piece = 5) {
  std::string out;
  std::string buf(piece, '\0');
  while (auto const n = source.read(buf.data(), buf.size())) out.append(buf.data(), n);
  return out;
}

TEST(ByteSource, PlainBytesInMemory) {
  std::string const text = "{\"traceEvents\":[]}";
  auto source = open_memory_source("mem.json", std::span(text.data(), text.size()), 3);
  EXPECT_FALSE(source->compressed());
  EXPECT_EQ(source->file_size(), text.size());
  EXPECT_EQ(read_all(*source), text);
  EXPECT_EQ(source->file_bytes_consumed(), text.size());
}

TEST(ByteSource, GzipMembersWhateverTheRawReadSize) {
  // Found by fuzz_gzip_source: with short raw reads (memory sources; files on some network or
  // FUSE file systems) the next member's two magic bytes
  // arrived one at a time and were taken for "data after the end of the gzip stream".
  std::string const both =
      test::gzip_member("first, ") + test::gzip_member("") + test::gzip_member("second");
  for (std::size_t max_read : {1, 2, 3, 7, 1 << 20}) {
    auto source = open_memory_source("mem.gz", std::span(both.data(), both.size()), max_read);
    EXPECT_TRUE(source->compressed());
    EXPECT_EQ(read_all(*source), "first, second") << max_read;
    EXPECT_EQ(source->file_bytes_consumed(), both.size()) << max_read;
  }
}

TEST(ByteSource, MembersEndingInsideOneRead) {
  // Found while moving to igzip: a member that ends inside a read must leave the rest of that
  // read to the next member (resetting the inflate state for it cleared the output buffer).
  std::string const spaces(std::size_t{3} << 20, ' ');
  std::string const text = "head," + spaces + "middle" + spaces + "tail";
  std::string const members = test::gzip_member("head,") + test::gzip_member(spaces) +
                              test::gzip_member("middle") + test::gzip_member(spaces) +
                              test::gzip_member("tail");
  for (std::size_t piece : {std::size_t{7}, std::size_t{1} << 16, std::size_t{16} << 20}) {
    auto source = open_memory_source("mem.gz", std::span(members.data(), members.size()));
    EXPECT_EQ(read_all(*source, piece), text) << piece;
  }
}

TEST(ByteSource, GzipDefectsInMemory) {
  std::string const member = test::gzip_member("some text");
  // A reserved flag bit (RFC 1952: an error), in the first member and in a later one.
  std::string reserved = member;
  reserved[3] = static_cast<char>(reserved[3] | 0x40);
  for (auto const& [bytes, why] : {std::pair{member + "x", "after the end of the gzip stream"},
                                   std::pair{member + "\x1f", "after the end of the gzip stream"},
                                   std::pair{member.substr(0, member.size() - 3), "truncated"},
                                   std::pair{reserved, "reserved flag bits set"},
                                   std::pair{member + reserved, "reserved flag bits set"}}) {
    for (std::size_t max_read : {1, 1 << 20}) {
      auto source = open_memory_source("mem.gz", std::span(bytes.data(), bytes.size()), max_read);
      try {
        read_all(*source);
        ADD_FAILURE() << why << ": read without error";
      } catch (input_error const& e) {
        EXPECT_EQ(e.path(), "mem.gz");
        EXPECT_NE(e.why().find(why), std::string::npos) << e.what();
      }
    }
  }
}

}  // namespace byte_source_test

}  // namespace tracesweep::chrome
