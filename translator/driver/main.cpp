// main.cpp - the stap-pmu command line.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <algorithm>
#include <iostream>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "pmu/pmu.h"
#include "translator/build/boot.h"
#include "translator/build/cache.h"
#include "translator/driver/cli.h"
#include "translator/codegen/cmap.h"
#include "translator/kernelinfo/dwarf_facts.h"
#include "translator/build/kbuild.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/run/loader.h"
#include "translator/support/paths.h"
#include "translator/driver/pipeline.h"
#include "translator/frontend/printer.h"
#include "translator/build/sign.h"
#include "translator/frontend/tapsets.h"
#include "translator/build/tracequery_build.h"
#include "translator/run/vm.h"

#include <fnmatch.h>

namespace fs = std::filesystem;
using namespace stap_pmu;

namespace {


[[noreturn]] void die(const std::string &msg)
{
	std::cerr << "stap-pmu: error: " << msg << "\n";
	std::exit(1);
}

std::vector<std::string> split_list(const std::string &s)
{
	std::vector<std::string> out;
	size_t start = 0;
	while (start <= s.size()) {
		size_t end = s.find(',', start);
		if (end == std::string::npos)
			end = s.size();
		std::string item = s.substr(start, end - start);
		if (!item.empty())
			out.push_back(item);
		start = end + 1;
	}
	return out;
}

bool valid_define_name(const std::string &n)
{
	if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0])))
		return false;
	for (char c : n)
		if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
			return false;
	return true;
}

// -v: one line per pass with its time, as stap prints them:
// "Pass 1: parsed user script and 2 library scripts in 12ms."
class Timer {
public:
	explicit Timer(int verbose) : verbose_(verbose) {}
	// the next pass is timed from now
	void restart() { last_ = std::chrono::steady_clock::now(); }
	void pass(const std::string &what)
	{
		auto now = std::chrono::steady_clock::now();
		if (verbose_)
			std::cerr << what << " in "
				  << std::chrono::duration_cast<std::chrono::milliseconds>(now - last_)
					     .count()
				  << "ms.\n";
		last_ = now;
	}

private:
	int verbose_;
	std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// libpfm4 initialized and --pmu-targets expanded for the target
// architecture (-a / --vm-arch decides what host and all mean).
std::vector<std::string> cli_pmu_targets(const Cli &cli, pmu::Arch *arch_out)
{
	if (auto err = pmu::Resolver::init())
		die("cannot initialize libpfm4: " + *err);
	auto arch = pmu::parse_arch(!cli.arch.empty() ? cli.arch : cli.vm_arch);
	if (!arch)
		die("unknown architecture '" + cli.arch + cli.vm_arch + "' (x86_64, arm64)");
	std::string err;
	auto targets = pmu::Resolver::expand_targets(split_list(cli.pmu_targets), *arch, &err);
	if (!err.empty())
		die(err);
	if (arch_out)
		*arch_out = *arch;
	return targets;
}

int pmu_encode(const Cli &cli)
{
	pmu::Arch arch{};
	auto targets = cli_pmu_targets(cli, &arch);
	if (targets.empty())
		die("no PMU targets to encode '" + cli.pmu_encode + "' for (name them with "
		    "--pmu-targets; this machine's CPU matches no " +
		    std::string(pmu::arch_name(arch)) + " PMU table)");
	bool any = false;
	for (const std::string &t : targets) {
		pmu::TargetEncoding te = pmu::Resolver::encode(cli.pmu_encode, t);
		any |= te.enc.has_value();
		std::cout << pmu::format_encoding(te) << "\n";
	}
	return any ? 0 : 1;
}

int list_pmu_events(const Cli &cli)
{
	auto targets = cli_pmu_targets(cli, nullptr);
	std::cout << pmu::list_events(targets);
	return 0;
}

std::unique_ptr<SourceFile> load_script(const Cli &cli)
{
	if (!cli.expr.empty()) {
		if (auto e = check_script_size("<input>", cli.expr.size()))
			die(*e);
		return std::make_unique<SourceFile>("<input>", cli.expr);
	}
	if (cli.script_file.empty())
		die("no script given: name a script file or use -e 'SCRIPT'");
	std::string err;
	auto src = read_source_file(cli.script_file, &err);
	if (!src)
		die(err);
	return src;
}

std::string make_work_dir()
{
	std::string err, dir = make_temp_dir("stap-pmu", err);
	if (dir.empty())
		die(err);
	return dir;
}

// The running host cannot load modules when it has no module support at all.
void check_host_can_load()
{
	// root first: it is what a user on an ordinary host can fix
	if (geteuid() != 0)
		die("loading a kernel module needs root; run stap-pmu as root (or use --vm)");
	if (!fs::exists("/proc/modules"))
		die("this kernel cannot load modules (no /proc/modules); run the script in a "
		    "guest with --vm");
}

// Kernel facts for %( %) conditionals: the tree pass 4 will build against
// (the guest's with --vm); the host's uname when there is none.
PreprocInput kernel_facts(const Cli &cli)
{
	std::string arch = !cli.arch.empty() ? cli.arch : cli.vm_arch;
	try {
		if (!arch.empty() && kernel::normalize_arch(arch) != kernel::host_debian_arch()) {
			PreprocInput in = host_preproc_input();
			in.arch = kernel::normalize_arch(arch) == "arm64" ? "arm64" : arch;
			return in;
		}
		if (cli.vm) {
			kernel::GuestKernel g = kernel::find_guest_kernel(cli.release, false, false);
			return preproc_input_from_tree(g.build_dir, g.release, g.arch);
		}
		kernel::BuildTree t = kernel::find_build_tree(cli.release);
		return preproc_input_from_tree(t.dir, t.release, t.arch);
	} catch (const kernel::Error &) {
		return host_preproc_input();
	}
}

ParseOptions parse_options(const Cli &cli)
{
	ParseOptions po;
	po.pp = kernel_facts(cli);
	po.pp.guru = cli.guru;
	for (const std::string &d : cli.defines) {
		size_t eq = d.find('=');
		po.pp.defines[d.substr(0, eq)] = eq == std::string::npos ? "1" : d.substr(eq + 1);
	}
	po.tapset_dirs = cli.include_dirs;
	po.tapset_dirs.push_back(tapset_dir());
	return po;
}

// The target kernel's facts for pass 2 and -l/-L: where kernel.function /
// module("m").function find DWARF (kernelinfo/dwarf.h), and the builder of
// tracepoint query modules.
std::unique_ptr<KernelFacts> target_kernel_facts(const Cli &cli, const ParseOptions &po)
{
	dwarf::Options dc;
	dc.release = po.pp.kernel_vr;
	dc.module_dirs = cli.module_dirs;
	dc.module_files = cli.vm_modules;
	dc.vmlinux = cli.vmlinux;
	// kernel.trace: the tracepoint query modules (tracequery.h)
	tracequery::BuilderOptions to;
	to.release = cli.release;
	to.arch = !cli.arch.empty() ? cli.arch : cli.vm_arch;
	to.vm = cli.vm;
	to.kbuild_vars = cli.kbuild_vars;
	to.use_cache = !cli.no_cache;
	to.verbose = cli.verbose > 0;
	return std::make_unique<DwarfKernelFacts>(
		dc, std::make_unique<tracequery::KbuildQueryModuleBuilder>(to));
}

// -l / -L 'kernel.trace("sys:pattern")': the subsystem's tracepoints (-L:
// with their arguments as $name:type). False when pat is another pattern.
bool list_tracepoints(const Cli &cli, const std::string &pat, int &rc)
{
	const std::string kt = "kernel.trace(\"";
	if (pat.rfind(kt, 0) != 0 || pat.size() < kt.size() + 2 || pat.compare(pat.size() - 2, 2, "\")") != 0)
		return false;
	auto spec = split_tracepoint_spec(pat.substr(kt.size(), pat.size() - kt.size() - 2));
	if (!spec)
		die(spec.error().what);
	const std::string &sys = spec->sys, &ev = spec->event;
	auto facts = target_kernel_facts(cli, parse_options(cli));
	TracepointLookup found = facts->tracepoints(sys);
	if (auto *e = std::get_if<TracepointError>(&found))
		die(e->error.what + (e->error.hint.empty() ? "" : " (" + e->error.hint + ")"));
	const TracepointSubsystem *s = std::get<const TracepointSubsystem *>(found);
	rc = 1;
	for (const TracepointEvent &e : s->events) {
		if (fnmatch(ev.c_str(), e.name.c_str(), 0) != 0)
			continue;
		std::cout << "kernel.trace(\"" << sys << ":" << e.name << "\")";
		if (!cli.list_probes_vars.empty() && e.func) {
			std::string vars = describe_vars(*e.func, false);
			if (!vars.empty())
				std::cout << " " << vars;
		}
		std::cout << "\n";
		rc = 0;
	}
	return true;
}

// -l / -L 'kernel.function("GLOB")[.return]' and
// 'module("M").function("GLOB")[.return]': the functions DWARF has, as
// "NAME@FILE:LINE", with -L their parameters (and $return for .return).
bool list_dwarf_functions(const Cli &cli, const std::string &pat, int &rc)
{
	std::string module, prefix, rest = pat;
	const std::string kf = "kernel.function(\"", mf = "module(\"";
	if (rest.rfind(kf, 0) == 0) {
		prefix = "kernel";
		rest = rest.substr(kf.size() - 2);
	} else if (rest.rfind(mf, 0) == 0) {
		size_t q = rest.find('"', mf.size());
		if (q == std::string::npos || rest.compare(q, 12, "\").function(") != 0)
			return false;
		module = rest.substr(mf.size(), q - mf.size());
		prefix = "module(\"" + module + "\")";
		rest = rest.substr(q + 11);
	} else {
		return false;
	}
	// rest: ("GLOB")[.call|.return]
	size_t end = rest.find("\")", 2);
	if (rest.rfind("(\"", 0) != 0 || end == std::string::npos)
		die("expected " + prefix + ".function(\"GLOB\") in '" + pat + "'");
	std::string glob = rest.substr(2, end - 2), suffix = rest.substr(end + 2);
	if (!suffix.empty() && suffix != ".return" && suffix != ".call")
		die("unexpected '" + suffix + "' in '" + pat + "' (.call or .return may follow)");
	auto fns = target_kernel_facts(cli, parse_options(cli))->functions(module, glob);
	if (!fns)
		die(fns.error().what + (fns.error().hint.empty() ? "" : " (" + fns.error().hint + ")"));
	std::vector<std::string> lines;
	for (const KernelFunction &f : *fns) {
		std::string l = prefix + ".function(\"" + f.name + "@" + f.file + ":" +
				std::to_string(f.line) + "\")" + suffix;
		if (!cli.list_probes_vars.empty()) {
			std::string vars = describe_vars(f, suffix == ".return");
			if (!vars.empty())
				l += " " + vars;
		}
		lines.push_back(l);
	}
	std::sort(lines.begin(), lines.end());
	lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
	for (const std::string &l : lines)
		std::cout << l << "\n";
	rc = lines.empty() ? 1 : 0;
	return true;
}

// -l / -L PATTERN: the probe points matching a glob, for the kinds that
// exist (kprobe symbols from the target kernel's System.map or kallsyms).
int list_probes(const Cli &cli)
{
	std::string pat = !cli.list_probes.empty() ? cli.list_probes : cli.list_probes_vars;
	if (int rc; list_tracepoints(cli, pat, rc) || list_dwarf_functions(cli, pat, rc))
		return rc;
	ParseOptions po = parse_options(cli);
	std::vector<std::string> names = {"begin", "end", "error", "timer.s(N)", "timer.ms(N)",
					  "timer.us(N)", "timer.ns(N)", "timer.hz(N)",
					  "timer.ms(N).randomize(M)", "timer.profile",
					  "perf.event(\"E\").sample(N)", "perf.event(\"E\").hz(N)",
					  "perf.type(T).config(C).sample(N)",
					  "perf.type(T).config(C).hz(N)"};
	for (const std::string &a : tapset_aliases(load_tapsets(po.tapset_dirs, po.pp)))
		names.push_back(a);
	const std::string kp = "kprobe.function(\"";
	if (pat.rfind("kprobe", 0) == 0) {
		std::string sym_glob = "*";
		if (pat.rfind(kp, 0) == 0) {
			size_t end = pat.find('"', kp.size());
			sym_glob = pat.substr(kp.size(), end == std::string::npos ? end : end - kp.size());
		}
		std::vector<std::string> maps = {"/boot/System.map-" + po.pp.kernel_vr, "/proc/kallsyms"};
		for (const std::string &m : maps) {
			std::ifstream f(m);
			if (!f)
				continue;
			std::set<std::string> seen;
			size_t lines = 0;
			for (std::string addr, type, sym; f >> addr >> type >> sym; lines++) {
				std::string rest;
				std::getline(f, rest);
				if ((type == "t" || type == "T") && sym.find('.') == std::string::npos &&
				    fnmatch(sym_glob.c_str(), sym.c_str(), 0) == 0 && seen.insert(sym).second) {
					names.push_back(kp + sym + "\")");
					names.push_back(kp + sym + "\").return");
				}
			}
			if (lines > 1) // Debian ships a one-line placeholder System.map
				break;
		}
	}
	std::sort(names.begin(), names.end());
	int n = 0;
	for (const std::string &name : names)
		if (fnmatch(pat.c_str(), name.c_str(), 0) == 0) {
			std::cout << name << "\n";
			n++;
		}
	return n ? 0 : 1;
}

// Pass 4's target: arch, build tree, and the guest kernel with --vm.
struct BuildTarget {
	std::string host_arch, arch;
	bool foreign = false;
	kernel::BuildTree tree;
	kernel::GuestKernel guest;
};

BuildTarget resolve_build_target(const Cli &cli)
{
	// -a ARCH / --vm-arch ARCH: a foreign arch builds against the kernel that
	// scripts/install-deps.sh unpacked, cross-compiling with kbuild.
	BuildTarget bt;
	std::string &host_arch = bt.host_arch;
	host_arch = kernel::host_debian_arch();
	std::string &arch = bt.arch;
	arch = kernel::normalize_arch(!cli.arch.empty() ? cli.arch
						  : !cli.vm_arch.empty() ? cli.vm_arch : host_arch);
	if (arch.empty())
		die("unsupported architecture '" + (cli.arch.empty() ? cli.vm_arch : cli.arch) +
		    "' (supported: x86_64, arm64)");
	if (!cli.arch.empty() && !cli.vm_arch.empty() && kernel::normalize_arch(cli.vm_arch) != arch)
		die("-a " + cli.arch + " and --vm-arch " + cli.vm_arch + " disagree");
	bt.foreign = arch != host_arch;
	bool foreign = bt.foreign;
	if (cli.pass >= 5 && !cli.vm && foreign)
		die("a module built for " + arch + " cannot be loaded on this " + host_arch +
		    " host; add --vm to run it in an " + arch + " guest");
	if (cli.pass >= 5 && !cli.vm)
		check_host_can_load(); // before spending seconds in kbuild
	// Pass 4: the kernel we build for is the guest's with --vm.
	kernel::BuildTree &tree = bt.tree;
	kernel::GuestKernel &guest = bt.guest;
	try {
		if (foreign) {
			guest = kernel::find_foreign_kernel(arch, cli.release);
			tree = {guest.build_dir, guest.release, guest.arch};
		} else if (cli.vm) {
			guest = kernel::find_guest_kernel(cli.release, cli.pass >= 5, cli.verbose > 0);
			tree = {guest.build_dir, guest.release, guest.arch};
		} else {
			tree = kernel::find_build_tree(cli.release);
		}
	} catch (const kernel::Error &e) {
		die(e.what());
	}
	return bt;
}

// Everything that changes the module (docs/deploy.md, "Module cache").
std::string module_cache_key(const Cli &cli, const Parsed &parsed, const TranslateOptions &topts,
			     const BuildTarget &bt, const std::string &module_name)
{
	cache::Key k;
	k.add("stap-pmu", STAP_PMU_VERSION);
	k.add_file_stat("exe", "/proc/self/exe");
	cache::add_dir(k, "runtime", runtime_dir());
	k.add("script.name", parsed.source->name());
	k.add("script", parsed.source->text());
	for (const auto &t : parsed.tapset_sources) {
		k.add("tapset.name", t->name());
		k.add("tapset", t->text());
	}
	k.add("module", module_name);
	for (const std::string &t : topts.pmu_targets)
		k.add("pmu.target", t);
	if (std::find(topts.pmu_targets.begin(), topts.pmu_targets.end(), "host") !=
	    topts.pmu_targets.end()) {
		pmu::CpuId c = pmu::Resolver::host_cpu();
		k.add("host.cpu", c.vendor + " " + std::to_string(c.family) + "/" +
					  std::to_string(c.model) + "/" + std::to_string(c.stepping));
	}
	k.add("pmu.fallback", topts.pmu_fallback);
	k.add("pmu.arch", topts.pmu_arch);
	// pass 2 checks @pmu_thread against these: a cache hit must not skip that
	k.add("target", topts.at_boot ? "at-boot" : topts.has_target ? "1" : "0");
	k.add("libpfm", pmu::Resolver::pfm_version());
	for (const auto &[n, v] : topts.defines)
		k.add("define", n + "=" + v);
	for (const std::string &v : cli.kbuild_vars)
		k.add("kbuild.var", v);
	k.add("guru", cli.guru ? "1" : "0");
	k.add("arch", bt.arch);
	k.add("vm", cli.vm ? "1" : "0");
	cache::add_build_tree(k, bt.tree.dir, bt.tree.release);
	// DWARF inputs of kernel.function/module() probe points
	if (!cli.vmlinux.empty())
		k.add_file_stat("vmlinux", cli.vmlinux);
	for (const std::string &d : cli.module_dirs)
		k.add_file_stat("module.dir", d);
	for (const std::string &m : cli.vm_modules)
		k.add_file_stat("vm.module", m);
	return k.hex();
}

// "1 probe", "2 probes"
std::string count(size_t n, const std::string &what)
{
	return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// Pass 2's -v line: what the script amounts to.
std::string pass2_summary(const Elaborated &elab)
{
	size_t functions = 0;
	for (const FunctionInfo &f : elab.sema.functions)
		functions += f.used;
	return "Pass 2: analyzed script: " + count(elab.sema.instances.size(), "probe") + ", " +
	       count(functions, "function") + ", " + count(elab.sema.globals.size(), "global") +
	       ", " + count(elab.sema.events.size(), "PMU event");
}

// Pass 4 failed: the compiler's errors at the script locations of the C
// they are in (translator/cmap.h), make's whole output with -v.
int kbuild_failed(const Cli &cli, const KbuildResult &kres, const Parsed &parsed,
		  const Translated &tr, const TranslateOptions &topts, const std::string &work)
{
	if (cli.verbose)
		std::cerr << kres.log;
	std::string where = " (generated C kept in " + work + ")";
	if (!kres.c_path.empty()) {
		std::vector<const SourceFile *> sources{parsed.source.get()};
		for (const auto &t : parsed.tapset_sources)
			sources.push_back(t.get());
		std::cerr << cmap::explain_failure(kres.log, tr.c_source, kres.c_path, sources,
						   topts.defines)
				     .text;
		if (!kres.log_path.empty())
			where = "; make's output is in " + kres.log_path + ", the C in " + kres.c_path;
	}
	std::cerr << "stap-pmu: error: " << kres.error << where << "\n";
	return 1;
}

int run(const Cli &cli)
{
	Timer timer(cli.verbose);
	Diagnostics diags;
	TranslateOptions topts;
	topts.pmu_targets = split_list(cli.pmu_targets);
	topts.pmu_fallback = cli.pmu_fallback;
	topts.pmu_arch = !cli.arch.empty() ? cli.arch : cli.vm_arch;
	topts.module_name = cli.module_name;
	topts.version = STAP_PMU_VERSION;
	topts.has_target = !cli.command.empty() || cli.target_pid > 0;
	topts.at_boot = cli.vm_at_boot;
	topts.guru = cli.guru;
	for (const std::string &d : cli.defines) {
		size_t eq = d.find('=');
		std::string name = d.substr(0, eq);
		if (!valid_define_name(name) || d.find('\n') != std::string::npos)
			die("bad -D option '" + d + "': expected NAME or NAME=VALUE");
		topts.defines.emplace_back(name, eq == std::string::npos ? "1" : d.substr(eq + 1));
	}
	if (!cli.module_name.empty() && !valid_define_name(cli.module_name))
		die("module name '" + cli.module_name +
		    "' must be letters, digits and '_' (not starting with a digit)");

	if (cli.no_warnings)
		diags.set_warning_mode(Diagnostics::WarningMode::Suppress);
	else if (cli.warnings_are_errors)
		diags.set_warning_mode(Diagnostics::WarningMode::AsErrors);
	ParseOptions popts = parse_options(cli);
	std::unique_ptr<KernelFacts> facts = target_kernel_facts(cli, popts);
	Parsed parsed = parse_pass(load_script(cli), popts, diags);
	timer.pass("Pass 1: parsed user script and " +
		   count(parsed.tapset_sources.size(), "library script"));
	if (diags.has_errors()) {
		diags.render(std::cerr);
		return 1;
	}
	if (cli.pass == 1) {
		diags.render(std::cerr);
		print_script(parsed.script, std::cout);
		return 0;
	}
	// Pass 4's target and the module cache come before pass 2: a cached
	// module skips passes 2-4.
	const std::string module_name =
		!cli.module_name.empty() ? cli.module_name
					 : "stap_pmu_" + script_hash(parsed.source->text(), topts).substr(0, 10);
	BuildTarget bt;
	std::string cache_key;
	std::optional<std::string> cached_ko;
	if (cli.pass >= 4) {
		bt = resolve_build_target(cli);
		if (!cli.no_cache) {
			cache_key = module_cache_key(cli, parsed, topts, bt, module_name);
			cached_ko = cache::lookup(cache::modules_dir(), cache_key, module_name);
		}
	}
	const kernel::GuestKernel &guest = bt.guest;
	Elaborated elab;
	Translated tr;
	std::string work, ko_path;
	if (cached_ko) {
		ko_path = *cached_ko;
		if (cli.verbose)
			std::cerr << "Pass 3-4: using cached module " << ko_path << "\n";
	} else {
		timer.restart();
		elab = elaborate_pass(parsed, topts, facts.get(), diags);
		diags.render(std::cerr);
		if (!diags.has_errors())
			timer.pass(pass2_summary(elab));
		if (cli.verbose && !elab.sema.events.empty() && !diags.has_errors())
			for (const std::string &line : pmu_summary(elab.pmu))
				std::cerr << line << "\n";
		if (diags.has_errors())
			return 1;
		if (cli.pass == 2) {
			print_elaborated(parsed, elab, std::cout);
			return 0;
		}
		timer.restart();
		tr = translate_pass(parsed, elab, topts);
		if (cli.pass == 3) {
			timer.pass("Pass 3: translated to C");
			std::cout << tr.c_source;
			return 0;
		}
		work = make_work_dir();
		timer.pass("Pass 3: translated to C into \"" + work + "/" + module_name + ".c\"");
		KbuildRequest kr;
		kr.module_name = module_name;
		kr.c_source = tr.c_source;
		kr.build_tree = bt.tree.dir;
		kr.runtime_dir = fs::absolute(runtime_dir()).string();
		kr.work_dir = work;
		for (const std::string &v : cli.kbuild_vars) {
			if (v.find('=') == std::string::npos || v.find('\n') != std::string::npos)
				die("bad -B option '" + v + "': expected NAME=VALUE");
			if (v.rfind("CROSS_COMPILE=", 0) == 0)
				kr.cross_compile = v.substr(strlen("CROSS_COMPILE="));
			else
				kr.make_vars.push_back(v);
		}
		if (bt.foreign) {
			kr.arch = bt.tree.arch;
			if (kr.cross_compile.empty() && bt.arch == "arm64")
				kr.cross_compile = "aarch64-linux-gnu-";
		}
		KbuildResult kres = kbuild(kr);
		if (!kres.ok) {
			timer.pass("Pass 4: compilation failed");
			return kbuild_failed(cli, kres, parsed, tr, topts, work);
		}
		timer.pass("Pass 4: compiled C into \"" + module_name + ".ko\" for " + bt.tree.release);
		ko_path = kres.ko_path;
		if (!cli.no_cache) {
			std::string err;
			if (!cache::store(cache::modules_dir(), cache_key, module_name, kres.ko_path, &err))
				std::cerr << "stap-pmu: warning: module cache: " << err << "\n";
			else if (cli.verbose)
				std::cerr << "Pass 4: stored in the module cache (" << cache::modules_dir() << "/"
					  << cache_key << ")\n";
		}
	}
	if (!cli.sign_module.empty()) {
		if (work.empty())
			work = make_work_dir();
		std::string signed_ko = work + "/signed/" + module_name + ".ko";
		std::error_code ec;
		fs::create_directories(work + "/signed", ec);
		fs::copy_file(ko_path, signed_ko, fs::copy_options::overwrite_existing, ec);
		if (ec)
			die("cannot copy the module to sign it: " + ec.message());
		std::string err;
		if (!sign::sign_module(bt.tree.dir, cli.sign_module[0], cli.sign_module[1], signed_ko, &err))
			die(err);
		ko_path = signed_ko;
		if (cli.verbose)
			std::cerr << "Pass 4: signed " << ko_path << " (sha256, " << cli.sign_module[1] << ")\n";
	}
	if (!cli.initramfs.empty()) {
		std::string err;
		if (!boot::append_to_initramfs(cli.initramfs, ko_path, module_name, &err))
			die(err);
		std::cout << "added " << module_name << ".ko to " << cli.initramfs
			  << "; boot with rdinit=" << boot::kBootInit << " to load it before /init\n";
		if (!cli.keep && !work.empty())
			fs::remove_all(work);
		return 0;
	}
	if (cli.pass == 4 || !cli.module_name.empty()) {
		fs::path dest = fs::current_path() / (module_name + ".ko");
		std::error_code ec;
		fs::copy_file(ko_path, dest, fs::copy_options::overwrite_existing, ec);
		if (ec)
			die("cannot write " + dest.string() + ": " + ec.message());
		if (cli.pass == 4) {
			std::cout << dest.string() << "\n";
			if (!cli.keep && !work.empty())
				fs::remove_all(work);
			return 0;
		}
	}

	int rc;
	timer.restart();
	if (cli.vm) {
		vm::VmOptions vo;
		vo.module_path = ko_path;
		vo.module_name = module_name;
		vo.command = cli.command;
		vo.kernel = guest;
		vm::set_arch_defaults(vo, guest.arch.empty() ? "x86" : guest.arch);
		std::string gbin = guest_bin_dir() + (vo.arch == "arm64" ? "/arm64" : "");
		vo.loader_path = gbin + "/stap-pmu-loader";
		vo.workload_path = gbin + "/pmu-workload";
		if (!cli.vm_cpu.empty())
			vo.cpu = cli.vm_cpu;
		vo.smp = cli.vm_smp;
		vo.extra_cmdline = cli.vm_append;
		vo.at_boot = cli.vm_at_boot;
		vo.extra_modules = cli.vm_modules;
		vo.timeout_s = cli.vm_timeout;
		vo.verbose = cli.verbose > 0;
		vo.json_output = cli.output_format == "json";
		vo.keep_temp = cli.keep;
		int out_fd = -1;
		if (!cli.output.empty()) {
			out_fd = open(cli.output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			if (out_fd < 0)
				die("cannot write " + cli.output + ": " + std::strerror(errno));
			vo.output_fd = out_fd;
		}
		rc = vm::run_in_vm(vo);
		if (out_fd >= 0)
			close(out_fd);
	} else {
		loader::LoadOptions lo;
		lo.module_path = ko_path;
		lo.module_name = module_name;
		lo.target_pid = cli.target_pid;
		lo.command = cli.command;
		lo.output_file = cli.output;
		lo.json = cli.output_format == "json";
		lo.verbose = cli.verbose > 0;
		rc = loader::run_module(lo);
	}
	timer.pass(rc == 0 ? std::string("Pass 5: run completed")
			   : "Pass 5: run ended with exit status " + std::to_string(rc));
	if (!cli.keep && !work.empty())
		fs::remove_all(work);
	return rc;
}

} // namespace

int main(int argc, char **argv)
{
	Cli cli;
	if (int rc = parse_command_line(argc, argv, cli); rc >= 0)
		return rc;
	if (cli.version) {
		std::cout << "stap-pmu " << STAP_PMU_VERSION << " (libpfm4 "
			  << pmu::Resolver::pfm_version() << ")\n";
		try {
			kernel::BuildTree t = kernel::find_build_tree("");
			std::cout << "default target kernel: " << t.release << " (" << t.arch << ", "
				  << t.dir << ")\n";
		} catch (const kernel::Error &e) {
			std::cout << "default target kernel: none (" << e.what() << ")\n";
		}
		return 0;
	}
	if (!cli.list_probes.empty() || !cli.list_probes_vars.empty())
		return list_probes(cli);
	if (!cli.pmu_encode.empty())
		return pmu_encode(cli);
	if (cli.list_pmu_events)
		return list_pmu_events(cli);
	if (!cli.command.empty() && cli.target_pid)
		die("-c and -x cannot be used together");
	if (cli.clean_cache) {
		std::string err, dir = cache::modules_dir();
		int n = cache::clean(dir, &err);
		if (n < 0)
			die(err);
		std::cout << "removed " << n << " cached module" << (n == 1 ? "" : "s") << " from " << dir
			  << "\n";
		return 0;
	}
	if (!cli.attach.empty() || !cli.stop.empty()) {
		if (!cli.attach.empty() && !cli.stop.empty())
			die("--attach and --stop cannot be used together");
		loader::SessionOptions so;
		so.module_name = cli.attach.empty() ? cli.stop : cli.attach;
		so.output_file = cli.output;
		so.json = cli.output_format == "json";
		so.verbose = cli.verbose > 0;
		return cli.attach.empty() ? loader::stop_module(so) : loader::attach_module(so);
	}
	if (cli.vm_at_boot && !cli.vm)
		die("--vm-at-boot needs --vm");
	if (!cli.initramfs.empty() && cli.vm)
		die("--initramfs and --vm cannot be used together");
	if (!cli.initramfs.empty()) {
		if (cli.pass < 4)
			die("--initramfs needs pass 4 (the module is built, not run)");
		cli.pass = 4; // built here, loaded at boot
	}
	return run(cli);
}
