// driver.cpp - one invocation: the action its options ask for, or passes
// 1-5 in order, each with typed input and output.
#include "translator/driver/driver.h"

#include <cctype>
#include <filesystem>
#include <iostream>

#include "translator/builder/cache.h"
#include "translator/driver/build_pass.h"
#include "translator/driver/info.h"
#include "translator/driver/target_kernel.h"
#include "translator/driver/target_programs.h"
#include "translator/driver/listing.h"
#include "translator/driver/translate_passes.h"
#include "translator/driver/run_pass.h"
#include "translator/driver/timer.h"
#include "translator/frontend/printer.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/sema/storage.h"
#include "translator/support/arch.h"

namespace stap_pmu {

namespace {

bool valid_define_name(const std::string &n)
{
	if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0])))
		return false;
	for (char c : n)
		if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
			return false;
	return true;
}

// The target's program: -c CMD's first word, or -x PID's executable ("" if
// neither, or the pid's is not readable here or is a guest's).
static std::string target_program(const Cli &cli)
{
	if (!cli.command.empty()) {
		size_t b = cli.command.find_first_not_of(" \t");
		if (b == std::string::npos)
			return "";
		return cli.command.substr(b, cli.command.find_first_of(" \t", b) - b);
	}
	if (cli.target_pid <= 0 || cli.vm) // --vm: the pid is the guest's
		return "";
	std::error_code ec;
	auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(cli.target_pid) + "/exe", ec);
	return ec ? "" : exe.string();
}

// Passes 2 and 3's options: -D, -m, the PMU targets, and whether the module
// has a target process.
Result<TranslateOptions> translate_options(const Cli &cli)
{
	TranslateOptions topts;
	topts.pmu_targets = split_list(cli.pmu_targets);
	topts.pmu_fallback = cli.pmu_fallback;
	topts.arch = cli.arch;
	topts.module_name = cli.module_name;
	topts.version = STAP_PMU_VERSION;
	topts.has_target = !cli.command.empty() || cli.target_pid > 0;
	topts.at_boot = cli.vm_at_boot;
	topts.guru = cli.guru;
	topts.script_args = cli.script_args;
	topts.symbol_files = cli.symbol_files;
	topts.ldd = cli.ldd;
	topts.target_program = target_program(cli);
	for (const std::string &d : cli.defines) {
		size_t eq = d.find('=');
		std::string name = d.substr(0, eq);
		if (!valid_define_name(name) || d.find('\n') != std::string::npos)
			return fail("bad -D option '" + d + "': expected NAME or NAME=VALUE");
		topts.defines.emplace_back(name, eq == std::string::npos ? "1" : d.substr(eq + 1));
	}
	if (!cli.module_name.empty() && !valid_define_name(cli.module_name))
		return fail("module name '" + cli.module_name +
			    "' must be letters, digits and '_' (not starting with a digit)");
	return topts;
}

Result<std::unique_ptr<SourceFile>> load_script(const Cli &cli)
{
	if (!cli.expr.empty()) {
		if (Status st = check_script_size("<input>", cli.expr.size()); !st)
			return st.error();
		return std::make_unique<SourceFile>("<input>", cli.expr);
	}
	if (cli.script_file.empty())
		return fail("no script given: name a script file or use -e 'SCRIPT'");
	return read_source_file(cli.script_file);
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

// -v: how the kernel function probes will be placed (runtime/stp_ftrace.h
// decides at load which entry functions ftrace takes); -vv: each probe's.
std::vector<std::string> kprobe_summary(const Elaborated &elab, const Cli &cli)
{
	bool x86 = cli.arch == Arch::X86_64;
	size_t entry = 0, kprobes = 0, rets = 0;
	std::vector<std::string> lines;
	for (const auto &pi : elab.sema.instances) {
		const ResolvedPoint &p = pi.point;
		std::string how;
		if (p.kind == ProbeKind::Kretprobe)
			how = "kretprobe", rets++;
		else if (p.kind != ProbeKind::Kprobe)
			continue;
		else if (x86 && !p.offset && p.sym_delta)
			how = "entry: ftrace_ops if ftrace-able at load, else kprobe", entry++;
		else if (x86 && !p.offset && p.symbol.find(':') != std::string::npos)
			how = "entry: module function, its address found at load; ftrace_ops if "
			      "ftrace-able, else kprobe",
			entry++;
		else
			how = std::string("kprobe (") +
			      (p.offset ? "mid-function" : !x86 ? "entry on this architecture"
					  : "no unique address in the symbol table") +
			      ")",
			kprobes++;
		if (cli.verbose > 1)
			lines.push_back("  " + p.name + ": " + how);
	}
	if (entry + kprobes + rets)
		lines.insert(lines.begin(), "Pass 2: kernel probes: " + count(entry, "entry probe") +
						    " through ftrace_ops if ftrace-able, else kprobes; " +
						    count(kprobes, "kprobe") + ", " + count(rets, "kretprobe"));
	return lines;
}

// Passes 1-3's results, or the exit status when the invocation ends with one
// of them (-p1, -p2, -p3 or script errors).
struct Front {
	std::optional<int> exit;
	Parsed parsed;
	std::unique_ptr<KernelFacts> facts; // pass 2's target kernel
	std::unique_ptr<ProcessFacts> process; // pass 2's user-space programs
	std::vector<std::string> user_files;   // the files process probes name
	Translated translated;
};

// Pass 1.
Result<Front> parse(const Cli &cli, Diagnostics &diags, Timer &timer)
{
	ParseOptions popts = parse_options(cli);
	Result<std::unique_ptr<SourceFile>> src = load_script(cli);
	if (!src)
		return src.error();
	Front f;
	f.facts = target_kernel_facts(cli, popts);
	f.process = target_process_facts(cli);
	f.parsed = parse_pass(std::move(*src), popts, diags);
	timer.pass("Pass 1: parsed user script and " +
		   count(f.parsed.tapset_sources.size(), "library script"));
	if (diags.has_errors()) {
		diags.render(std::cerr);
		f.exit = 1;
	} else if (cli.pass == 1) {
		diags.render(std::cerr);
		print_script(f.parsed.script, std::cout);
		f.exit = 0;
	}
	return f;
}

// Passes 2 and 3: the module's C into f.translated, or f.exit.
void elaborate_and_translate(const Cli &cli, const TranslateOptions &topts, Diagnostics &diags,
			     Timer &timer, Front &f)
{
	timer.restart();
	Elaborated elab = elaborate_pass(f.parsed, topts, f.facts.get(), f.process.get(), diags);
	f.user_files = elab.user_files;
	diags.render(std::cerr);
	if (!diags.has_errors())
		timer.pass(pass2_summary(elab));
	if (cli.verbose && !elab.sema.events.empty() && !diags.has_errors())
		for (const std::string &line : pmu_summary(elab.pmu))
			std::cerr << line << "\n";
	if (cli.verbose && !diags.has_errors())
		for (const std::string &line : kprobe_summary(elab, cli))
			std::cerr << line << "\n";
	// where each global lives and why, which locks each body takes
	// (sema/storage.cpp)
	if (cli.verbose && !diags.has_errors())
		for (const std::string &line : storage_summary(elab.sema))
			std::cerr << line << "\n";
	if (diags.has_errors()) {
		f.exit = 1;
		return;
	}
	if (cli.pass == 2) {
		print_elaborated(f.parsed, elab, std::cout);
		f.exit = 0;
		return;
	}
	timer.restart();
	f.translated = translate_pass(f.parsed, elab, topts);
	if (cli.pass == 3) {
		timer.pass("Pass 3: translated to C");
		std::cout << f.translated.c_source;
		f.exit = 0;
	}
}

// Pass 4's request for the script; a module cache hit skips passes 2-3.
Result<BuildRequest> build_request(const Cli &cli, const Front &f, const TranslateOptions &topts,
				   const std::string &module_name, BuildTarget &bt)
{
	Result<BuildTarget> target = resolve_build_target(cli);
	if (!target)
		return target.error();
	bt = std::move(*target);
	BuildRequest br;
	br.parsed = &f.parsed;
	br.topts = &topts;
	br.target = &bt;
	br.module_name = module_name;
	br.kbuild_vars = cli.kbuild_vars;
	br.sign_module = cli.sign_module;
	br.debug_info = cli.module_debuginfo;
	br.kbuild_replay = !cli.kbuild_make;
	br.caches = cli.caches;
	br.verbose = cli.verbose > 0;
	// a process probe's module holds offsets into the binaries: not cached
	if (!cli.no_cache && !names_process_probes(f.parsed) && !names_user_binaries(cli, f.parsed)) {
		br.cache_key = module_cache_key(cli, f.parsed, topts, bt, module_name);
		if (auto ko = cache::lookup(cli.caches.modules, br.cache_key, module_name))
			br.cached_ko = *ko;
	}
	return br;
}

// Passes 1-5 for the script.
Result<int> compile_and_run(const Cli &cli)
{
	Timer timer(cli.verbose);
	Diagnostics diags;
	Result<TranslateOptions> topts = translate_options(cli);
	if (!topts)
		return topts.error();
	if (cli.no_warnings)
		diags.set_warning_mode(Diagnostics::WarningMode::Suppress);
	else if (cli.warnings_are_errors)
		diags.set_warning_mode(Diagnostics::WarningMode::AsErrors);
	Result<Front> f = parse(cli, diags, timer);
	if (!f)
		return f.error();
	if (f->exit)
		return *f->exit;
	// Pass 4's target and the module cache come before pass 2: a cached
	// module skips passes 2-4.
	const std::string module_name =
		!cli.module_name.empty()
			? cli.module_name
			: "stap_pmu_" + script_hash(f->parsed.source->text(), *topts).substr(0, 10);
	BuildTarget bt;
	BuildRequest br;
	if (cli.pass >= 4) {
		Result<BuildRequest> r = build_request(cli, *f, *topts, module_name, bt);
		if (!r)
			return r.error();
		br = std::move(*r);
	}
	if (br.cached_ko.empty()) {
		elaborate_and_translate(cli, *topts, diags, timer, *f);
		if (f->exit)
			return *f->exit;
		br.translated = &f->translated;
	}
	WorkDir work(cli.keep);
	Result<Built> built = build_pass(br, work, timer);
	if (!built)
		return built.error();
	Result<bool> done = deliver(cli, *built, module_name);
	if (!done)
		return done.error();
	if (*done)
		return 0;
	RunRequest rr = run_request(cli);
	rr.ko_path = built->ko_path;
	rr.module_name = module_name;
	if (cli.vm)
		rr.guest = bt.guest;
	rr.user_files = f->user_files;
	timer.restart();
	Result<int> rc = run_pass(rr);
	if (rc)
		timer.pass(*rc == 0 ? std::string("Pass 5: run completed")
				    : "Pass 5: run ended with exit status " + std::to_string(*rc));
	return rc;
}

// The --vm guest's architecture: -a, else --vm-arch, else the host's.
bool guest_is_arm64(const Cli &cli)
{
	return cli.arch == Arch::Arm64;
}

// Options that contradict each other, or need another.
Status check_run_options(Cli &cli)
{
	if (cli.vm_at_boot && !cli.vm)
		return fail("--vm-at-boot needs --vm");
	if (!cli.vm_during.empty() && (!cli.vm || cli.vm_at_boot))
		return fail("--vm-during needs --vm (without --vm-at-boot)");
	if (cli.vm_tcg == "multi" && !cli.vm)
		return fail("--vm-tcg needs --vm");
	if (cli.vm_tcg == "multi" && guest_is_arm64(cli))
		return fail("--vm-tcg multi: arm64 guests run with -icount (exact instruction "
			    "counts), which QEMU's multi-threaded TCG does not support");
	if (!cli.initramfs.empty() && cli.vm)
		return fail("--initramfs and --vm cannot be used together");
	if (!cli.initramfs.empty()) {
		if (cli.pass < 4)
			return fail("--initramfs needs pass 4 (the module is built, not run)");
		cli.pass = 4; // built here, loaded at boot
	}
	return {};
}

} // namespace

Result<int> drive(Cli cli)
{
	if (cli.version)
		return print_version();
	if (!cli.list_probes.empty() || !cli.list_probes_vars.empty())
		return list_probes(cli);
	if (!cli.pmu_encode.empty())
		return pmu_encode(cli);
	if (cli.list_pmu_events)
		return list_pmu_events(cli);
	if (!cli.command.empty() && cli.target_pid)
		return fail("-c and -x cannot be used together");
	if (cli.clean_cache)
		return clean_cache(cli.caches);
	if (!cli.attach.empty() || !cli.stop.empty())
		return attach_or_stop(cli);
	if (Status st = check_run_options(cli); !st)
		return st.error();
	return compile_and_run(cli);
}

int report(const Error &e)
{
	std::cerr << "stap-pmu: error: " << e.what << (e.hint.empty() ? "" : " (" + e.hint + ")")
		  << "\n";
	return 1;
}

} // namespace stap_pmu
