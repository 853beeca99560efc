// paths.cpp - locating the tool's own files.
#include "translator/support/paths.h"

#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace stap_pmu {

std::string self_exe_dir()
{
	std::error_code ec;
	fs::path p = fs::read_symlink("/proc/self/exe", ec);
	return ec ? std::string(".") : p.parent_path().string();
}

static std::string pick(const char *env, const fs::path &installed, const std::string &build)
{
	if (const char *e = std::getenv(env); e && *e)
		return e;
	std::error_code ec;
	if (fs::is_directory(installed, ec))
		return installed.string();
	return build;
}

std::string runtime_dir()
{
	return pick("STAP_PMU_RUNTIME", fs::path(self_exe_dir()) / "../share/stap-pmu/runtime",
		    STAP_PMU_SOURCE_DIR "/runtime");
}

std::string tapset_dir()
{
	return pick("STAP_PMU_TAPSETS", fs::path(self_exe_dir()) / "../share/stap-pmu/tapsets",
		    STAP_PMU_SOURCE_DIR "/tapsets");
}

std::string guest_bin_dir()
{
	return pick("STAP_PMU_GUEST_BIN", fs::path(self_exe_dir()) / "../libexec/stap-pmu",
		    STAP_PMU_BUILD_GUEST_DIR);
}

std::string guest_program(Arch arch, const std::string &name)
{
	return guest_bin_dir() + (arch == Arch::Arm64 ? "/arm64/" : "/") + name;
}

} // namespace stap_pmu
