// source.cpp - source file patterns of probe points.
#include "translator/dwarfloc/source.h"

#include <dwarf.h>
#include <fnmatch.h>

#include <filesystem>

namespace stap_pmu::dwarfloc {

namespace {

bool name_matches(const std::string &glob, const std::string &file)
{
	std::string base = std::filesystem::path(file).filename().string();
	return fnmatch(glob.c_str(), file.c_str(), 0) == 0 ||
	       fnmatch(glob.c_str(), base.c_str(), 0) == 0 ||
	       fnmatch(("*/" + glob).c_str(), file.c_str(), 0) == 0;
}

// file under cu's compilation directory ("" : absolute already, or no
// directory known)
std::string under_comp_dir(const std::string &file, Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *dir = nullptr;
	if (!cu || file.empty() || file[0] == '/' || !dwarf_attr(cu, DW_AT_comp_dir, &a) ||
	    !(dir = dwarf_formstring(&a)) || dir[0] != '/')
		return "";
	return (std::filesystem::path(dir) / file).lexically_normal().string();
}

} // namespace

bool file_matches(const std::string &glob, const std::string &file, Dwarf_Die *cu)
{
	if (glob.empty() || name_matches(glob, file))
		return true;
	std::string full = under_comp_dir(file, cu);
	return !full.empty() && name_matches(glob, full);
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
		    !src || !file_matches(file_glob, src, cu))
			continue;
		if (!best || a < *best)
			best = a;
	}
	return best;
}

} // namespace stap_pmu::dwarfloc
