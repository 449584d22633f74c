// SPDX-License-Identifier: Apache-2.0
// advise_huge_pages and the event table's reserve: the memory of a reserved column is marked for
// transparent huge pages before anything is written (the kernel's smaps says THPeligible), where
// the system leaves huge pages to the program ("madvise"; skipped under "never" or without THP).
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tracesweep/event_table.hpp>
#include <tracesweep/huge_pages.hpp>

namespace huge_pages_test {

constexpr std::uintptr_t huge_page = std::uintptr_t{2} << 20;

/// The THP mode the system runs in ("always", "madvise", "never"), or "" without THP.
std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string all;
  std::getline(in, all);
  auto const open = all.find('['), close = all.find(']');
  return open == std::string::npos || close == std::string::npos
             ? std::string()
             : all.substr(open + 1, close - open - 1);
}

/// The THPeligible value of the mapping holding `address` (-1: not found).
int thp_eligible(void const* address) {
  auto const a = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t from = 0, to = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> from >> dash >> to && dash == '-' && line.find(':') > line.find(' ')) {
      inside = a >= from && a < to;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) return std::stoi(line.substr(12));
  }
  return -1;
}

/// The first whole huge page inside [p, p + bytes).
void const* first_huge_page(void const* p) {
  return reinterpret_cast<void const*>((reinterpret_cast<std::uintptr_t>(p) + huge_page - 1) &
                                       ~(huge_page - 1));
}

void skip_without_madvise_mode() {
  if (thp_mode() != "madvise") GTEST_SKIP() << "transparent huge pages not in madvise mode";
}

TEST(HugePages, AdvisedMemoryIsEligibleBeforeItIsTouched) {
  skip_without_madvise_mode();
  std::vector<char> buffer;
  buffer.reserve(16 * huge_page);  // a mapping of its own, untouched
  auto const* page = first_huge_page(buffer.data());
  if (thp_eligible(page) != 0) GTEST_SKIP() << "the allocator's memory is eligible already";
  tracesweep::advise_huge_pages(buffer.data(), buffer.capacity());
  EXPECT_EQ(thp_eligible(page), 1);
}

TEST(HugePages, LessThanAWholePageOrNothingIsLeftAlone) {
  std::vector<char> buffer(huge_page);
  tracesweep::advise_huge_pages(nullptr, 1 << 30);
  tracesweep::advise_huge_pages(buffer.data(), 0);
  tracesweep::advise_huge_pages(buffer.data() + 1, huge_page - 1);
  EXPECT_EQ(buffer[huge_page - 1], 0);  // contents unchanged
}

TEST(HugePages, TheEventTableMarksTheColumnsItReserves) {
  skip_without_madvise_mode();
  tracesweep::event_table t;
  t.reserve(std::size_t{4} << 20);  // 32 MiB a time column
  EXPECT_EQ(thp_eligible(first_huge_page(t.start_ns.data())), 1);
  EXPECT_EQ(thp_eligible(first_huge_page(t.end_ns.data())), 1);
  EXPECT_EQ(thp_eligible(first_huge_page(t.name.data())), 1);
}

}  // namespace huge_pages_test
