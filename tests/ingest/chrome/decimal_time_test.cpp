// SPDX-License-Identifier: Apache-2.0
// Exact µs-text → ns conversion: every timestamp style in the Kineto traces, half-to-even ties,
// exponents, negatives, 19-digit values and the int64 limits. Expected values worked by hand.
#include <gtest/gtest.h>

#include "ingest/chrome/decimal_time.hpp"

#include <limits>

namespace tracesweep::chrome {
namespace decimal_time_test {

std::int64_t ns(std::string_view text) {
  std::int64_t out = -777;
  EXPECT_EQ(microseconds_to_ns(text, out), number_status::ok) << text;
  return out;
}

TEST(DecimalTime, KinetoStyles) {
  EXPECT_EQ(ns("1683564901548726"), 1683564901548726000);      // integer µs (≤ 2024-03)
  EXPECT_EQ(ns("1712195495519689.047"), 1712195495519689047);  // absolute us.nnn
  EXPECT_EQ(ns("4458676522690.655"), 4458676522690655);        // relative us.nnn
  EXPECT_EQ(ns("68.0"), 68000);                                // HTA re-write
  EXPECT_EQ(ns("1.28"), 1280);
  EXPECT_EQ(ns("0"), 0);
  EXPECT_EQ(ns("-0"), 0);
  EXPECT_EQ(ns("0.000"), 0);
  EXPECT_EQ(ns("13336315.805 \n\t"), 13336315805);  // raw tokens carry trailing spaces
}

TEST(DecimalTime, RoundHalfToEven) {
  EXPECT_EQ(ns("1.0005"), 1000);      // 1000.5 → even 1000
  EXPECT_EQ(ns("1.0015"), 1002);      // 1001.5 → even 1002
  EXPECT_EQ(ns("1.00050001"), 1001);  // above the tie
  EXPECT_EQ(ns("1.0004999"), 1000);
  EXPECT_EQ(ns("0.0005"), 0);  // 0.5 → 0
  EXPECT_EQ(ns("0.0015"), 2);  // 1.5 → 2
  EXPECT_EQ(ns("0.0025"), 2);  // 2.5 → 2
  EXPECT_EQ(ns("0.00051"), 1);
  EXPECT_EQ(ns("0.00005"), 0);      // 0.05 → 0
  EXPECT_EQ(ns("-1.0015"), -1002);  // symmetric
  EXPECT_EQ(ns("-0.0005"), 0);
  EXPECT_EQ(ns("1.9999995"), 2000);  // 1999.9995 → 2000 (carry)
}

TEST(DecimalTime, ExponentsAndBigValues) {
  EXPECT_EQ(ns("1e3"), 1000000);
  EXPECT_EQ(ns("1.5E-3"), 2);  // 1.5 ns → 2
  EXPECT_EQ(ns("2.5e-3"), 2);  // 2.5 ns → 2
  EXPECT_EQ(ns("1.712195495519689047e15"), 1712195495519689047);
  EXPECT_EQ(ns("-2e+2"), -200000);
  EXPECT_EQ(ns("9223372036854775.807"), 9223372036854775807);   // INT64_MAX ns
  EXPECT_EQ(ns("9223372036854775.8069"), 9223372036854775807);  // rounds down onto the limit
  EXPECT_EQ(ns("1234567890123456.789"), 1234567890123456789);   // 19 digits
  EXPECT_EQ(ns("0.000000000000000000000001"), 0);
  EXPECT_EQ(ns("100000000000000000000000e-20"), 1000000);  // 1e3 µs, many digits
  std::int64_t out = 0;
  EXPECT_EQ(microseconds_to_ns("9223372036854775.808", out), number_status::out_of_range);
  EXPECT_EQ(microseconds_to_ns("1e20", out), number_status::out_of_range);
  EXPECT_EQ(microseconds_to_ns("99999999999999999999", out), number_status::out_of_range);
  std::int64_t base = 0;
  EXPECT_EQ(decimal_to_scaled_int("1711964646000000000", 0, base), number_status::ok);
  EXPECT_EQ(base, 1711964646000000000);
}

TEST(DecimalTime, SixteenToNineteenIntegerDigitsAndTheNegativeLimit) {
  // Found by fuzz_decimal_time: 16 to 19 integer digits overflowed the fast path's running sum
  // (signed overflow), and -2^63 ns was called out of range although it fits.
  std::int64_t out = 0;
  EXPECT_EQ(microseconds_to_ns("9999999999999999999", out), number_status::out_of_range);
  EXPECT_EQ(microseconds_to_ns("9234567834234567893", out), number_status::out_of_range);
  EXPECT_EQ(microseconds_to_ns("9223372036854776", out), number_status::out_of_range);
  EXPECT_EQ(ns("9223372036854775"), 9223372036854775000);
  EXPECT_EQ(ns("1234567890123456"), 1234567890123456000);
  EXPECT_EQ(ns("-9223372036854775.808"), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(ns("-9223372036854775.8085"), std::numeric_limits<std::int64_t>::min());  // tie: even
  EXPECT_EQ(microseconds_to_ns("-9223372036854775.8086", out), number_status::out_of_range);
  EXPECT_EQ(decimal_to_scaled_int("-9223372036854775808", 0, out), number_status::ok);
  EXPECT_EQ(out, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(decimal_to_scaled_int("-9223372036854775809", 0, out), number_status::out_of_range);
}

TEST(DecimalTime, ShortIntegersUpToEighteenDigits) {
  auto value = [](std::string_view text) {
    std::int64_t out = -777;
    EXPECT_TRUE(short_json_integer(text, out)) << text;
    return out;
  };
  EXPECT_EQ(value("0"), 0);
  EXPECT_EQ(value("-0"), 0);
  EXPECT_EQ(value("783658 \n"), 783658);
  EXPECT_EQ(value("-42"), -42);
  EXPECT_EQ(value("999999999999999999"), 999999999999999999);  // 18 digits
  EXPECT_EQ(value("-999999999999999999"), -999999999999999999);
  std::int64_t out = 5;
  for (std::string_view other : {"", "-", "01", "-01", "1.0", "1e3", "1000000000000000000", "+1",
                                 "12x", "\"12\"", "1 2", " 1", "{"}) {
    EXPECT_FALSE(short_json_integer(other, out)) << other;
    EXPECT_EQ(out, 5);
  }
}

TEST(DecimalTime, RejectsWhatIsNotAJsonNumber) {
  std::int64_t out = 5;
  for (std::string_view bad : {"", "-", "+1", "01", "1.", ".5", "1e", "1e+", "0x10", "1.2.3", "12x",
                               "NaN", "Infinity", " 1", "1 2"}) {
    EXPECT_EQ(microseconds_to_ns(bad, out), number_status::not_a_number) << bad;
    EXPECT_EQ(out, 5);
  }
}

}  // namespace decimal_time_test

}  // namespace tracesweep::chrome
