// kbuild.cpp - writes NAME.c and a Kbuild file, runs make -C TREE M=DIR.
#include "translator/builder/kbuild.h"
#include "translator/support/text.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace stap_pmu {

static bool write_file(const fs::path &p, const std::string &text)
{
	std::ofstream out(p, std::ios::binary | std::ios::trunc);
	out << text;
	return static_cast<bool>(out);
}

KbuildResult kbuild(const KbuildRequest &req)
{
	KbuildResult r;
	fs::path dir = req.work_dir;
	std::error_code ec;
	fs::create_directories(dir, ec);
	if (ec) {
		r.error = "cannot create " + dir.string() + ": " + ec.message();
		return r;
	}
	std::string kbuild_file = "obj-m := " + req.module_name + ".o\n" +
				  "ccflags-y := -I" + req.runtime_dir + " -Wno-unused-function" +
				  (req.debug_info ? "" : " -g0") +
				  (req.extra_ccflags.empty() ? "" : " " + req.extra_ccflags) + "\n" +
				  // columns in bytes, as the script's (cmap.h maps them back)
				  "ccflags-y += $(call cc-option,-fdiagnostics-column-unit=byte)\n" +
				  // no ftrace sites in the module: a probe's own path (the
				  // handlers, the bodies) never calls into ftrace
				  "CFLAGS_REMOVE_" + req.module_name + ".o += $(CC_FLAGS_FTRACE)\n";
	if (!write_file(dir / (req.module_name + ".c"), req.c_source) ||
	    !write_file(dir / "Kbuild", kbuild_file)) {
		r.error = "cannot write the module source in " + dir.string();
		return r;
	}
	if (!fs::exists(fs::path(req.build_tree) / "Makefile")) {
		r.error = "kernel build tree " + req.build_tree + " has no Makefile";
		return r;
	}
	// The compiler's messages in English, quoted in ASCII as stap-pmu's
	// (the kernel's Makefile unexports LC_ALL)
	std::string cmd = "LANG=C LC_CTYPE=C LC_MESSAGES=C LC_ALL=C make -C " + text::shell_quote(req.build_tree) + " M=" +
			  text::shell_quote(fs::absolute(dir).string());
	if (!req.arch.empty())
		cmd += " ARCH=" + text::shell_quote(req.arch);
	if (!req.cross_compile.empty())
		cmd += " CROSS_COMPILE=" + text::shell_quote(req.cross_compile);
	for (const std::string &v : req.make_vars)
		cmd += " " + text::shell_quote(v);
	cmd += " modules 2>&1";
	// Test hook: every make run is appended to $STAP_PMU_KBUILD_LOG, so tests
	// can assert that a cached module was not rebuilt.
	if (const char *hook = getenv("STAP_PMU_KBUILD_LOG"); hook && *hook) {
		std::ofstream log(hook, std::ios::app);
		log << cmd << "\n";
	}
	FILE *p = popen(cmd.c_str(), "r");
	if (!p) {
		r.error = "cannot run make";
		return r;
	}
	std::array<char, 4096> buf;
	size_t n;
	while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
		r.log.append(buf.data(), n);
	int status = pclose(p);
	fs::path ko = dir / (req.module_name + ".ko");
	if (status != 0 || !fs::exists(ko)) {
		r.error = "kbuild failed (make exit status " +
			  std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
		r.c_path = (fs::absolute(dir) / (req.module_name + ".c")).string();
		fs::path log_path = fs::absolute(dir) / "make.log";
		if (write_file(log_path, cmd + "\n" + r.log))
			r.log_path = log_path.string();
		return r;
	}
	r.ok = true;
	r.ko_path = ko.string();
	return r;
}

} // namespace stap_pmu
