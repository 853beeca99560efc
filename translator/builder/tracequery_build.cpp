// tracequery_build.cpp - builds tracepoint query modules (tracequery.h) for
// the target kernel with kbuild, through the module cache.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "translator/builder/cache.h"
#include "translator/builder/kbuild.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/support/file.h"
#include "translator/builder/tracequery_build.h"

namespace fs = std::filesystem;

namespace stap_pmu::tracequery {

namespace {

// Work directories of uncached queries: their .ko stays open for DWARF
// reads until the process ends, when their owner removes them.
std::vector<sys::TempDir> &leftovers()
{
	static std::vector<sys::TempDir> v;
	return v;
}

// The compiler's first error lines, for the hint.
std::string first_errors(const std::string &log)
{
	std::istringstream in(log);
	std::string line, out;
	int n = 0;
	while (n < 3 && std::getline(in, line))
		if (line.find("error:") != std::string::npos) {
			out += (out.empty() ? "" : "\n") + line;
			n++;
		}
	return out;
}

} // namespace

Result<Target> KbuildQueryModuleBuilder::target() const
{
	const BuilderOptions &o = opts_;
	Arch arch = o.arch;
	bool foreign = arch != host_arch();
	auto find_tree = [&]() -> Result<kernel::BuildTree> {
		if (!foreign && !o.vm)
			return kernel::find_build_tree(o.release);
		Result<kernel::GuestKernel> g = foreign ? kernel::find_foreign_kernel(arch, o.release)
							: kernel::find_guest_kernel(o.release, false, false);
		if (!g)
			return g.error();
		return kernel::BuildTree{g->build_dir, g->release, g->arch};
	};
	Result<kernel::BuildTree> found = find_tree();
	if (!found)
		return found.error();
	const kernel::BuildTree &tree = *found;
	Target t;
	t.tree = tree.dir;
	t.release = tree.release;
	for (const std::string &v : o.kbuild_vars) {
		if (v.rfind("CROSS_COMPILE=", 0) == 0)
			t.cross_compile = v.substr(strlen("CROSS_COMPILE="));
		else if (v.find('=') != std::string::npos)
			t.make_vars.push_back(v);
	}
	if (foreign) {
		t.arch = tree.arch;
		if (t.cross_compile.empty() && arch == Arch::Arm64)
			t.cross_compile = "aarch64-linux-gnu-";
	}
	return t;
}

Result<std::string> KbuildQueryModuleBuilder::build(const Target &t, const std::string &name,
						    const std::string &src) const
{
	const BuilderOptions &o = opts_;
	auto start = std::chrono::steady_clock::now();
	cache::Key k;
	k.add("tracequery", "1");
	k.add("source", src);
	cache::add_build_tree(k, t.tree, t.release);
	k.add("arch", t.arch ? kbuild_arch(*t.arch) : "");
	k.add("cross", t.cross_compile);
	for (const std::string &v : t.make_vars)
		k.add("kbuild.var", v);
	// the header itself (found where the query's #include finds it)
	std::string sys = src.substr(src.find("<trace/events/") + 14);
	sys = sys.substr(0, sys.find(".h>"));
	for (const std::string &d : include_dirs(t.tree)) {
		std::string h = d + "/trace/events/" + sys + ".h";
		if (fs::exists(h)) {
			k.add_file("header", h);
			break;
		}
	}
	const std::string key = k.hex(), dir = o.caches.modules;
	if (o.use_cache)
		if (auto p = cache::lookup(dir, key, name)) {
			if (o.verbose)
				std::cerr << "Pass 2: tracepoint query " << name << " from the module cache ("
					  << *p << ")\n";
			return *p;
		}
	auto tmp = sys::TempDir::create("stap-pmu-tq");
	if (!tmp)
		return tmp.error();
	const std::string tmpl = tmp->path();
	KbuildRequest kr;
	kr.module_name = name;
	kr.c_source = src;
	kr.build_tree = t.tree;
	kr.runtime_dir = tmpl;
	kr.work_dir = tmpl;
	kr.arch = t.arch;
	kr.cross_compile = t.cross_compile;
	kr.make_vars = t.make_vars;
	kr.extra_ccflags = "-g";
	kr.debug_info = true; // its DWARF is what it is built for
	kr.build_log = o.caches.kbuild_log;
	KbuildResult res = kbuild(kr);
	if (!res)
		return fail(res.error().what, first_errors(res.error().log));
	if (o.verbose)
		std::cerr << "Pass 2: built tracepoint query " << name << " in "
			  << std::chrono::duration_cast<std::chrono::milliseconds>(
				     std::chrono::steady_clock::now() - start)
				     .count()
			  << "ms\n";
	if (o.use_cache) {
		if (Result<std::string> p = cache::store(dir, key, name, res->ko_path)) {
			return *p;
		} else {
			std::cerr << "stap-pmu: warning: module cache: " << p.error().what << "\n";
		}
	}
	// the module is used from its build directory: it outlives this scope
	leftovers().push_back(std::move(*tmp));
	return res->ko_path;
}

} // namespace stap_pmu::tracequery
