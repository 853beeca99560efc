// kernel_release.cpp - Debian's kernel releases: version order and the default
// kernel line (the linux-image metapackage installed).
#include "translator/kernelinfo/kernel.h"
#include "translator/support/arch.h"
#include "translator/support/file.h"
#include "translator/support/text.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace stap_pmu::kernel {

int compare_versions(std::string_view a, std::string_view b)
{
	size_t i = 0, j = 0;
	auto digit = [](char c) { return c >= '0' && c <= '9'; };
	while (i < a.size() && j < b.size()) {
		if (digit(a[i]) && digit(b[j])) {
			size_t i0 = i, j0 = j;
			while (i0 < a.size() && a[i0] == '0')
				i0++;
			while (j0 < b.size() && b[j0] == '0')
				j0++;
			size_t i1 = i0, j1 = j0;
			while (i1 < a.size() && digit(a[i1]))
				i1++;
			while (j1 < b.size() && digit(b[j1]))
				j1++;
			if (i1 - i0 != j1 - j0)
				return i1 - i0 < j1 - j0 ? -1 : 1;
			int c = a.substr(i0, i1 - i0).compare(b.substr(j0, j1 - j0));
			if (c)
				return c < 0 ? -1 : 1;
			i = i1;
			j = j1;
			continue;
		}
		if (a[i] != b[j])
			return (unsigned char)a[i] < (unsigned char)b[j] ? -1 : 1;
		i++;
		j++;
	}
	if (i < a.size())
		return 1;
	if (j < b.size())
		return -1;
	return 0;
}

void sort_versions(std::vector<std::string> &v)
{
	std::sort(v.begin(), v.end(),
		  [](const std::string &a, const std::string &b) { return compare_versions(a, b) < 0; });
}

std::optional<std::string> metapackage_line(const std::string &dpkg_status, Arch arch)
{
	auto s = sys::read_file(dpkg_status, 256 << 20);
	if (!s)
		return std::nullopt;
	const std::string pkg = "Package: linux-image-" + std::string(debian_arch(arch)) + "\n";
	for (size_t p = s->find(pkg); p != std::string::npos; p = s->find(pkg, p + 1)) {
		if (p != 0 && (*s)[p - 1] != '\n')
			continue;
		size_t end = s->find("\n\n", p);
		std::string stanza = s->substr(p, end == std::string::npos ? std::string::npos : end - p);
		if (stanza.find("\nStatus: install ok installed\n") == std::string::npos)
			continue;
		size_t d = stanza.find("\nDepends: ");
		if (d == std::string::npos)
			continue;
		std::string deps = stanza.substr(d + 10, stanza.find('\n', d + 1) - d - 10);
		std::istringstream list(deps);
		for (std::string dep; std::getline(list, dep, ',');) {
			std::string name = text::trim(dep.substr(0, dep.find_first_of("(|")));
			if (name.rfind("linux-image-", 0) != 0)
				continue;
			if (auto n = parse_release(name.substr(strlen("linux-image-"))))
				return n->line;
		}
	}
	return std::nullopt;
}

std::optional<std::string> pick_default_release(const std::vector<std::string> &releases, Arch arch,
						const std::optional<std::string> &line)
{
	std::vector<std::string> stock;
	for (const std::string &r : releases)
		if (auto n = parse_release(r); n && n->flavour == debian_arch(arch))
			stock.push_back(r);
	if (stock.empty())
		return std::nullopt;
	sort_versions(stock);
	std::string want = parse_release(stock.front())->line; // the oldest line
	if (line)
		for (const std::string &r : stock)
			if (parse_release(r)->line == *line)
				want = *line;
	for (auto it = stock.rbegin(); it != stock.rend(); ++it)
		if (parse_release(*it)->line == want)
			return *it;
	return std::nullopt;
}

std::optional<std::string> default_line(Arch arch, const std::string &root)
{
	return metapackage_line(root + "/var/lib/dpkg/status", arch);
}

} // namespace stap_pmu::kernel
