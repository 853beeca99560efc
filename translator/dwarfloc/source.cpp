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

} // namespace stap_pmu::dwarfloc
