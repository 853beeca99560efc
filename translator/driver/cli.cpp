// cli.cpp - stap-pmu's options, grouped in --help as in stap(1).
#include "translator/driver/cli.h"

#include <CLI/CLI.hpp>
#include <iostream>

namespace stap_pmu {

namespace {

// Script and run: the script, -p, -c, -x, -o, -v, -k.
void add_script_options(CLI::App &app, Cli &cli)
{
	app.add_option("script", cli.script_file,
		       "Script file (.stp); ARG... after it (or after -e SCRIPT) are the "
		       "script's $1 @1 ...")
		->group("Script and run");
	app.add_option("-e", cli.expr, "Run SCRIPT given on the command line")->option_text("SCRIPT")
		->group("Script and run");
	app.add_option("-p", cli.pass, "Stop after pass N: 1 parse, 2 elaborate, 3 C, 4 build, 5 run")
		->check(CLI::Range(1, 5))
		->group("Script and run");
	app.add_option("-c", cli.command, "Run CMD; target() is its pid; stop when it exits")
		->option_text("CMD")
		->group("Script and run");
	app.add_option("-x", cli.target_pid, "Set target() to PID")->option_text("PID")
		->group("Script and run");
	app.add_option("-d", cli.symbol_files,
		       "Add FILE's symbols and unwind data to the module (ubacktrace(), usymname(), ...)")
		->option_text("FILE")
		->group("Script and run");
	app.add_flag("--ldd", cli.ldd,
		     "With the user binaries of -d, -c/-x and process probes, add the shared "
		     "libraries they need")
		->group("Script and run");
	app.add_option("-o", cli.output, "Write script output to FILE")->option_text("FILE")
		->group("Script and run");
	app.add_option("--output-format", cli.output_format,
		       "text (default) or json: one JSON object per output record (probe, cpu, "
		       "timestamp_ns, seq, type, text)")
		->option_text("FORMAT")
		->check(CLI::IsMember({"text", "json"}))
		->group("Script and run");
	app.add_flag("-v", cli.verbose, "Verbose: print each pass and its time")
		->group("Script and run");
	app.add_flag("-k", cli.keep, "Keep the temporary directory")
		->group("Script and run");
}

// Language: -D, -g, -w, -W, -I, -l, -L.
void add_language_options(CLI::App &app, Cli &cli)
{
	app.add_option("-D", cli.defines, "Define NAME[=VALUE] for the module (limits) and replace the script's @define NAME")
		->option_text("NAME=VALUE")
		->allow_extra_args(false)
		->group("Language");
	app.add_flag("-g", cli.guru, "Guru mode: accept embedded C (%{ %})")
		->group("Language");
	app.add_flag("-w", cli.no_warnings, "Suppress warnings")
		->group("Language");
	app.add_flag("-W", cli.warnings_are_errors, "Treat warnings as errors")
		->group("Language");
	app.add_option("-I", cli.include_dirs, "Search DIR for tapsets (before tapsets/)")
		->option_text("DIR")
		->allow_extra_args(false)
		->group("Language");
	app.add_option("--compatible", cli.compatible,
		       "The SystemTap VERSION that %( systemtap_v %) compares with (default 4.8)")
		->option_text("VERSION")
		->check(
			[](const std::string &v) -> std::string {
				bool dot = true; // digits and single dots: 4.8, 3.3.1
				for (char c : v) {
					if (c == '.' && dot)
						return "expected a version such as 4.8, found '" + v + "'";
					dot = c == '.';
					if (!dot && (c < '0' || c > '9'))
						return "expected a version such as 4.8, found '" + v + "'";
				}
				return dot ? "expected a version such as 4.8, found '" + v + "'" : "";
			},
			"VERSION")
		->group("Language");
	app.add_option("-l", cli.list_probes, "List probe points matching PATTERN")
		->option_text("PATTERN")
		->group("Language");
	app.add_option("-L", cli.list_probes_vars,
		       "List probe points matching PATTERN (no context variables exist)")
		->option_text("PATTERN")
		->group("Language");
}

// PMU: --pmu-targets, --pmu-fallback, --list-pmu-events, --pmu-encode.
void add_pmu_options(CLI::App &app, Cli &cli)
{
	app.add_option("--pmu-targets", cli.pmu_targets,
		       "Comma-separated libpfm4 PMUs the module carries rows for (host = this CPU)")
		->option_text("LIST")
		->group("PMU");
	app.add_option("--pmu-fallback", cli.pmu_fallback,
		       "none | row (default: add the generic perf row) | generic (also use generic "
		       "encodings for events a target lacks)")
		->option_text("MODE")
		->group("PMU");
	app.add_flag("--list-pmu-events", cli.list_pmu_events,
		     "List the events of the --pmu-targets PMUs (default host) and the portable ones")
		->group("PMU");
	app.add_option("--pmu-encode", cli.pmu_encode, "Print EVENT's encoding for each target")
		->option_text("EVENT")
		->group("PMU");
}

// Kernel and architecture: -r, -m, -a, -B, --module-dir, --vmlinux.
void add_kernel_options(CLI::App &app, Cli &cli)
{
	app.add_option("-r", cli.release, "Build for kernel RELEASE or build tree DIR")
		->option_text("RELEASE|DIR")
		->group("Kernel and architecture");
	app.add_option("-m", cli.module_name, "Name the module NAME (keeps NAME.ko)")
		->option_text("NAME")
		->group("Kernel and architecture");
	app.add_option("-a", cli.arch_option, "Build for ARCH (arm64: cross-build; with --vm, an arm64 guest)")
		->option_text("ARCH")
		->group("Kernel and architecture");
	app.add_option("-B", cli.kbuild_vars,
		       "Pass NAME=VALUE to kbuild's make (CROSS_COMPILE, default aarch64-linux-gnu- for arm64)")
		->option_text("NAME=VALUE")
		->allow_extra_args(false)
		->group("Kernel and architecture");
	app.add_flag("--module-debuginfo", cli.module_debuginfo,
		     "Build the module with DWARF (-g; without it the build is faster)")
		->group("Kernel and architecture");
	app.add_flag("--kbuild-make", cli.kbuild_make,
		     "Build with make every time (default: replay the commands kbuild ran for this kernel before)")
		->group("Kernel and architecture");
	app.add_option("--module-dir", cli.module_dirs,
		       "Search DIR for module .ko files with DWARF (module(\"m\").function)")
		->option_text("DIR")->allow_extra_args(false)->check(CLI::ExistingDirectory)
		->group("Kernel and architecture");
	app.add_option("--vmlinux", cli.vmlinux, "Kernel image with DWARF (kernel.function)")
		->option_text("FILE")->check(CLI::ExistingFile)
		->group("Kernel and architecture");
}

// Guests: --vm and its --vm-* options.
void add_guest_options(CLI::App &app, Cli &cli)
{
	app.add_flag("--vm", cli.vm, "Run in a throwaway QEMU guest booting the installed kernel")
		->group("Guests");
	app.add_option("--vm-arch", cli.vm_arch_option, "Guest architecture: x86_64 or arm64 (implied by -a)")
		->option_text("ARCH")
		->group("Guests");
	app.add_option("--vm-cpu", cli.vm_cpu,
		       "QEMU CPU model of the guest (default qemu64; arm64: cortex-a57, also cortex-a72, max)")
		->option_text("MODEL")
		->group("Guests");
	app.add_option("--vm-smp", cli.vm_smp, "Guest CPUs")->check(CLI::Range(1, 64))
		->group("Guests");
	app.add_option("--vm-tcg", cli.vm_tcg,
		       "QEMU TCG threads: single (default: the vCPUs take turns) or multi (one host "
		       "thread per vCPU, truly parallel; x86 only, and only for scripts whose probes "
		       "are not unregistered while other vCPUs run the probed code: docs/testing.md)")
		->option_text("single|multi")->check(CLI::IsMember({"single", "multi"}))
		->group("Guests");
	app.add_option("--vm-timeout", cli.vm_timeout, "Seconds before the guest is stopped")
		->group("Guests");
	app.add_option("--vm-append", cli.vm_append, "Extra guest kernel command line")
		->group("Guests");
	app.add_option("--vm-module", cli.vm_modules,
		       "Load FILE.ko in the guest before the script (also searched for DWARF)")
		->option_text("FILE")->allow_extra_args(false)->check(CLI::ExistingFile)
		->group("Guests");
	app.add_flag("--vm-at-boot", cli.vm_at_boot,
		     "With --vm: the guest's /init loads the module before anything else; output is "
		     "read afterwards (no loader runs during the command)")
		->group("Guests");
	app.add_option("--vm-after", cli.vm_after,
		       "With --vm: a shell command the guest runs after the script has ended and its "
		       "module is unloaded (its output follows the script's)")
		->option_text("CMD")
		->group("Guests");
	app.add_option("--vm-during", cli.vm_during,
		       "With --vm: a shell command the guest starts in the background once the module "
		       "is loaded, without making it the target (its output goes to stderr); stopped "
		       "when the script ends")
		->option_text("CMD")
		->group("Guests");
}

// Deployment: the module cache, --attach, --stop, --initramfs, --sign-module.
void add_deployment_options(CLI::App &app, Cli &cli)
{
	app.add_flag("--no-cache", cli.no_cache, "Neither use nor fill the module cache")
		->group("Deployment");
	app.add_flag("--clean-cache", cli.clean_cache, "Empty the module cache and exit")
		->group("Deployment");
	app.add_option("--attach", cli.attach,
		       "Stream the output of the running module NAME (interrupt to detach)")
		->option_text("NAME")
		->group("Deployment");
	app.add_option("--stop", cli.stop,
		       "Stop the running module NAME: end probes, remaining output, unload")
		->option_text("NAME")
		->group("Deployment");
	app.add_option("--initramfs", cli.initramfs,
		       "Add the module and a hook loading it to initramfs IMAGE (boot with "
		       "rdinit=/stap-pmu/init)")
		->option_text("IMAGE")
		->group("Deployment");
	app.add_option("--sign-module", cli.sign_module,
		       "Sign the module with the kernel tree's scripts/sign-file (sha256)")
		->option_text("KEY CERT")
		->expected(2)
		->group("Deployment");
}

} // namespace

int parse_command_line(int argc, char **argv, Cli &cli)
{
	CLI::App app{"stap-pmu: SystemTap-style probes that read named PMU counters in the kernel"};
	app.set_help_flag("-h,--help", "Print this help and exit");
	// options stop at the first argument after the script (stap SCRIPT ARG...)
	app.prefix_command();
	add_script_options(app, cli);
	add_language_options(app, cli);
	add_pmu_options(app, cli);
	add_kernel_options(app, cli);
	add_guest_options(app, cli);
	add_deployment_options(app, cli);
	app.add_flag("-V,--version", cli.version, "Print version information");
	try {
		app.parse(argc, argv);
	} catch (const CLI::ParseError &e) {
		if (e.get_exit_code() == 0)
			return app.exit(e);
		std::cerr << "stap-pmu: error: " << e.what() << "\n";
		return 1;
	}
	cli.script_args = app.remaining();
	// -e SCRIPT ARG...: the first positional is an argument, not a file
	if (!cli.expr.empty() && !cli.script_file.empty()) {
		cli.script_args.insert(cli.script_args.begin(), cli.script_file);
		cli.script_file.clear();
	}
	if (Status st = resolve_arch(cli); !st) {
		std::cerr << "stap-pmu: error: " << st.error().what << "\n";
		return 1;
	}
	cli.caches = CacheLocations::from_environment();
	return -1;
}

Status resolve_arch(Cli &cli)
{
	std::optional<Arch> a, vm;
	for (auto [given, out] : {std::pair{&cli.arch_option, &a}, {&cli.vm_arch_option, &vm}})
		if (!given->empty() && !(*out = parse_arch(*given)))
			return fail("unsupported architecture '" + *given + "' (supported: " +
				    arch_choices() + ")");
	if (a && vm && *a != *vm)
		return fail("-a " + cli.arch_option + " and --vm-arch " + cli.vm_arch_option +
			    " disagree");
	cli.arch = a ? *a : vm ? *vm : host_arch();
	return {};
}

} // namespace stap_pmu
