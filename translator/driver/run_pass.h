// run_pass.h - pass 5: the module loaded on this host by the loader, or in
// a QEMU guest with --vm; --attach / --stop for a module already loaded.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "translator/driver/cli.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/support/result.h"

namespace stap_pmu {

// Pass 5's input: the built module and how to run it.
struct RunRequest {
	std::string ko_path;
	std::string module_name;
	std::string command;  // -c CMD ("" : until exit() or an interrupt)
	int target_pid = 0;   // -x PID
	std::string output;   // -o FILE ("" : stdout)
	bool json = false;    // --output-format json
	bool verbose = false; // -v
	bool keep = false;    // -k: the guest's temporary files stay
	// --vm: the guest (nullopt: this host)
	std::optional<kernel::GuestKernel> guest;
	std::string vm_cpu; // "" : the architecture's default
	int vm_smp = 2;
	bool vm_mttcg = false; // --vm-tcg multi
	int vm_timeout = 300;
	std::string vm_append;
	bool vm_at_boot = false;
	std::string vm_after;
	std::string vm_during;
	std::vector<std::string> vm_modules;
	// --vm: the ELF files the script's process probes name (absolute host
	// paths), placed in the guest at the same paths
	std::vector<std::string> user_files;
};

// The options' part of pass 5's input (the module and the guest are pass 4's).
RunRequest run_request(const Cli &cli);

// Runs the module; its exit status.
Result<int> run_pass(const RunRequest &req);

// --attach NAME / --stop NAME: the output of a module loaded earlier (by
// --initramfs at boot, or a detached run).
Result<int> attach_or_stop(const Cli &cli);

} // namespace stap_pmu
