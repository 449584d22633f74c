// SPDX-License-Identifier: Apache-2.0
// Text from a trace made safe to leave the tool: valid UTF-8 everywhere (a byte that does not
// start a valid sequence becomes U+FFFD), and for a terminal (text output, error lines) control
// characters shown escaped ("\x1b", "\n") rather than acted on.
#pragma once

#include <string>
#include <string_view>

namespace tracesweep::output {

/// Whether `s` is valid UTF-8 (no overlongs, surrogates or code points above U+10FFFF).
[[nodiscard]] bool is_valid_utf8(std::string_view s) noexcept;

/// `s` with every byte that is not part of a valid UTF-8 sequence replaced by U+FFFD.
[[nodiscard]] std::string valid_utf8(std::string_view s);

/// valid_utf8(s) with its control characters escaped: LF, CR and tab as "\n", "\r", "\t", other
/// C0 controls and DEL as "\xHH", C1 controls (U+0080–U+009F) as "\u00HH".
[[nodiscard]] std::string terminal_text(std::string_view s);

}  // namespace tracesweep::output
