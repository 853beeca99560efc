// source.cpp - source file patterns of probe points.
#include "translator/dwarfloc/source.h"

#include <fnmatch.h>

#include <filesystem>

namespace stap_pmu::dwarfloc {

bool file_matches(const std::string &glob, const std::string &file)
{
	if (glob.empty())
		return true;
	std::string base = std::filesystem::path(file).filename().string();
	return fnmatch(glob.c_str(), file.c_str(), 0) == 0 ||
	       fnmatch(glob.c_str(), base.c_str(), 0) == 0 ||
	       fnmatch(("*/" + glob).c_str(), file.c_str(), 0) == 0;
}

std::optional<Dwarf_Addr> line_addr(Dwarf_Die *cu, Dwarf_Die *fn, int line,
				    const std::string &file_glob)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return std::nullopt;
	std::optional<Dwarf_Addr> best;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		int ln;
		Dwarf_Addr a;
		bool stmt = false;
		const char *src = dwarf_linesrc(l, nullptr, nullptr);
		if (dwarf_lineno(l, &ln) != 0 || ln != line || dwarf_lineaddr(l, &a) != 0 ||
		    dwarf_haspc(fn, a) <= 0 || dwarf_linebeginstatement(l, &stmt) != 0 || !stmt ||
		    !src || !file_matches(file_glob, src))
			continue;
		if (!best || a < *best)
			best = a;
	}
	return best;
}

} // namespace stap_pmu::dwarfloc
