// pfm_version.cpp - the libpfm4 release in use ("4.13").
//
// pfm_get_version() only reports the API version (4.0), so the release is
// taken from the file name of the loaded shared library (libpfm.so.4.13.0),
// falling back to the library found at configure time, then to the API
// version.
#include "pmu/pmu.h"

#include <perfmon/pfmlib.h>

#include <dlfcn.h>

#include <filesystem>
#include <regex>
#include <string_view>

#include <fmt/format.h>

namespace stap_pmu::pmu {
namespace {

// "/usr/lib/x86_64-linux-gnu/libpfm.so.4.13.0" -> "4.13"
std::optional<std::string> release_from_path(const std::string &path)
{
	std::error_code ec;
	auto real = std::filesystem::canonical(path, ec);
	std::string name = ec ? std::filesystem::path(path).filename().string()
			      : real.filename().string();
	static const std::regex re(R"(libpfm\.so\.(\d+)\.(\d+))");
	std::smatch m;
	if (!std::regex_search(name, m, re))
		return std::nullopt;
	return fmt::format("{}.{}", m[1].str(), m[2].str());
}

std::optional<std::string> loaded_release()
{
	Dl_info info{};
	if (!dladdr(reinterpret_cast<void *>(&pfm_initialize), &info) || !info.dli_fname)
		return std::nullopt;
	return release_from_path(info.dli_fname);
}

} // namespace

std::string Resolver::pfm_version()
{
	if (auto v = loaded_release())
		return *v;
#ifdef STAP_PMU_PFM_LIBRARY
	if (auto v = release_from_path(STAP_PMU_PFM_LIBRARY))
		return *v;
#endif
	int v = pfm_get_version();
	return fmt::format("{}.{}", PFM_MAJ_VERSION(v), PFM_MIN_VERSION(v));
}

} // namespace stap_pmu::pmu
