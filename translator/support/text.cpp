// text.cpp - small string helpers.
#include "translator/support/text.h"

namespace stap_pmu::text {

std::string trim(std::string_view s)
{
	constexpr std::string_view blanks = " \t\r\n";
	size_t b = s.find_first_not_of(blanks);
	if (b == std::string_view::npos)
		return "";
	size_t e = s.find_last_not_of(blanks);
	return std::string(s.substr(b, e - b + 1));
}

std::string shell_quote(std::string_view s)
{
	std::string q = "'";
	for (char c : s) {
		if (c == '\'')
			q += "'\\''";
		else
			q += c;
	}
	return q + "'";
}

std::string join(const std::vector<std::string> &v, std::string_view sep)
{
	std::string out;
	for (size_t i = 0; i < v.size(); i++) {
		if (i)
			out += sep;
		out += v[i];
	}
	return out;
}

} // namespace stap_pmu::text
