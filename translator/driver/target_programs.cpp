// target_programs.cpp - the user-space facts of one invocation (see the header).
#include "translator/driver/target_programs.h"

#include "translator/kernelinfo/kernel.h"
#include "translator/support/arch.h"
#include "translator/support/paths.h"
#include "translator/userinfo/elf_process_facts.h"

namespace stap_pmu {

std::unique_ptr<ProcessFacts> target_process_facts(const Cli &cli)
{
	ElfProcessFactsOptions o;
	o.arch = cli.arch;
	// -c './prog args': process("prog") is that program
	std::string cmd = cli.command.substr(0, cli.command.find_first_of(" \t"));
	o.target_program = cmd; // process.function(...) without a PATH
	if (size_t slash = cmd.rfind('/'); slash != std::string::npos)
		o.extra_dirs.push_back(slash == 0 ? "/" : cmd.substr(0, slash));
	if (cli.vm)
		o.extra_dirs.push_back(guest_bin_dir() + (o.arch == Arch::Arm64 ? "/arm64" : ""));
	return std::make_unique<ElfProcessFacts>(std::move(o));
}

bool names_process_probes(const Parsed &p)
{
	auto any = [](const Script &s) {
		for (const Probe &pr : s.probes)
			for (const ProbePoint &pp : pr.points)
				if (!pp.components.empty() && pp.components[0].name == "process")
					return true;
		return false;
	};
	return any(p.script);
}

bool names_user_binaries(const Cli &cli, const Parsed &p)
{
	if (!cli.symbol_files.empty() || cli.ldd)
		return true;
	if (cli.command.empty() && cli.target_pid <= 0)
		return false;
	const std::string &text = p.source->text();
	for (const char *f : {"ubacktrace", "ucallers", "uaddr", "usym", "umodname", "ustack"})
		if (text.find(f) != std::string::npos)
			return true;
	return false;
}

} // namespace stap_pmu
