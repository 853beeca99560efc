// release.cpp - kernel release strings.
#include "translator/support/release.h"

namespace stap_pmu {

std::optional<ReleaseName> parse_release(std::string_view r)
{
	auto digit = [](char c) { return c >= '0' && c <= '9'; };
	size_t i = 0;
	while (i < r.size() && (digit(r[i]) || r[i] == '.'))
		i++;
	std::string_view num = r.substr(0, i);
	size_t dot = num.find('.');
	if (num.empty() || !digit(num[0]) || dot == std::string_view::npos || dot + 1 >= num.size() ||
	    !digit(num[dot + 1]))
		return std::nullopt;
	ReleaseName n;
	n.line = std::string(num.substr(0, num.find('.', dot + 1)));
	// Debian's ABI number: "6.1.0-57-amd64"
	if (i + 1 < r.size() && r[i] == '-' && digit(r[i + 1])) {
		size_t j = i + 1;
		while (j < r.size() && digit(r[j]))
			j++;
		if (j == r.size() || r[j] == '-')
			i = j;
	}
	// a local version: "6.12.117+deb12-amd64"
	if (i < r.size() && r[i] == '+') {
		size_t j = r.find('-', i);
		i = j == std::string_view::npos ? r.size() : j;
	}
	if (i < r.size() && r[i] == '-')
		n.flavour = std::string(r.substr(i + 1));
	else if (i < r.size())
		return std::nullopt;
	return n;
}

std::string release_version(std::string_view release)
{
	return std::string(release.substr(0, release.find('-')));
}

} // namespace stap_pmu
