// text.h - small string helpers shared across the translator.
#pragma once

#include <string>
#include <string_view>

namespace stap_pmu::text {

// s without leading and trailing blanks (space, tab, \r, \n).
std::string trim(std::string_view s);

// POSIX single-quoting: 'it'\''s' for it's.
std::string shell_quote(std::string_view s);

} // namespace stap_pmu::text
