// cli.h - the parsed command line.
#pragma once

#include <string>
#include <vector>

#include "translator/support/arch.h"
#include "translator/support/locations.h"
#include "translator/support/result.h"

namespace stap_pmu {

struct Cli {
	std::string script_file;
	std::string expr;
	std::vector<std::string> script_args; // ARG... after SCRIPT (or -e SCRIPT): $1 @1 ...
	int pass = 5;
	std::string command;
	int target_pid = 0;
	std::vector<std::string> symbol_files; // -d FILE: user binaries whose symbols and CFI the module holds
	bool ldd = false;                      // --ldd: their shared libraries too
	std::string output;
	std::string output_format = "text";    // --output-format text|json
	int verbose = 0;
	std::string release;
	std::string module_name;
	std::vector<std::string> defines;
	std::string pmu_targets = "host";
	std::string pmu_fallback = "row";
	bool list_pmu_events = false;
	std::string pmu_encode;
	bool keep = false;
	bool vm = false;
	std::string vm_cpu;               // "" : qemu64 (x86), cortex-a57 (arm64)
	std::string arch_option;          // -a as given
	std::vector<std::string> kbuild_vars; // -B NAME=VALUE
	std::string vm_arch_option;       // --vm-arch as given
	// The target architecture: -a, else --vm-arch, else the host's; set
	// from the two by resolve_arch, the only reader of their spellings.
	Arch arch = host_arch();
	int vm_smp = 2;
	std::string vm_tcg = "single";    // --vm-tcg: QEMU TCG threads, "single" or "multi"
	int vm_timeout = 300;
	std::string vm_append;
	std::vector<std::string> vm_modules;   // --vm-module FILE.ko: insmod-ed in the guest first
	std::vector<std::string> module_dirs;  // --module-dir DIR: module .ko files with DWARF
	std::string vmlinux;                   // --vmlinux FILE: kernel with DWARF
	bool version = false;
	bool guru = false;                     // -g: embedded C allowed
	bool no_warnings = false;              // -w
	bool warnings_are_errors = false;      // -W
	std::vector<std::string> include_dirs; // -I DIR: tapsets
	std::string compatible;                // --compatible VERSION ("" : compatible_default)
	std::string list_probes;               // -l PATTERN
	std::string list_probes_vars;          // -L PATTERN
	bool no_cache = false;                 // --no-cache
	bool module_debuginfo = false;         // --module-debuginfo: -g for the module
	bool kbuild_make = false;              // --kbuild-make: no replay of kbuild's commands
	bool clean_cache = false;              // --clean-cache
	std::string attach;                    // --attach NAME
	std::string stop;                      // --stop NAME
	std::string initramfs;                 // --initramfs IMAGE
	bool vm_at_boot = false;               // --vm-at-boot
	std::string vm_after;                  // --vm-after CMD
	std::string vm_during;                 // --vm-during CMD
	std::vector<std::string> sign_module;  // --sign-module KEY CERT
	// Not options: the cache directories, read from the environment once
	// while the command line is parsed and passed down as values.
	CacheLocations caches;
};

// Parses argv into cli. Returns -1 to go on, else the exit status (after
// --help, or 1 after a usage error, printed on stderr).
int parse_command_line(int argc, char **argv, Cli &cli);

// Sets cli.arch from -a and --vm-arch; an error for a spelling that is no
// architecture or for two that disagree.
Status resolve_arch(Cli &cli);

} // namespace stap_pmu
