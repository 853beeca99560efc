// text.h - small string helpers shared across the translator.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stap_pmu::text {

// s without leading and trailing blanks (space, tab, \r, \n).
std::string trim(std::string_view s);

// POSIX single-quoting: 'it'\''s' for it's.
std::string shell_quote(std::string_view s);

// The strings of v with sep between them: join({"a", "b"}, ", ") is "a, b".
std::string join(const std::vector<std::string> &v, std::string_view sep = ", ");

} // namespace stap_pmu::text
