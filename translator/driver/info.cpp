// info.cpp - -V, --pmu-encode and --list-pmu-events.
#include "translator/driver/info.h"

#include <iostream>

#include "pmu/pmu.h"
#include "translator/kernelinfo/kernel.h"

namespace stap_pmu {

namespace {

// libpfm4 initialized and --pmu-targets expanded for the target
// architecture (-a / --vm-arch decides what host and all mean).
Result<std::vector<std::string>> cli_pmu_targets(const Cli &cli, pmu::Arch *arch_out)
{
	if (auto st = pmu::Resolver::init(); !st)
		return fail("cannot initialize libpfm4: " + st.error().what);
	auto targets = pmu::Resolver::expand_targets(split_list(cli.pmu_targets), cli.arch);
	if (!targets)
		return targets.error();
	if (arch_out)
		*arch_out = cli.arch;
	return targets;
}

} // namespace

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

int print_version()
{
	std::cout << "stap-pmu " << STAP_PMU_VERSION << " (libpfm4 " << pmu::Resolver::pfm_version()
		  << ")\n";
	if (Result<kernel::BuildTree> t = kernel::find_build_tree(""))
		std::cout << "default target kernel: " << t->release << " ("
			  << kernel::tree_arch_name(t->arch) << ", "
			  << t->dir << ")\n";
	else
		std::cout << "default target kernel: none (" << t.error().what << ")\n";
	return 0;
}

Result<int> pmu_encode(const Cli &cli)
{
	pmu::Arch arch{};
	Result<std::vector<std::string>> targets = cli_pmu_targets(cli, &arch);
	if (!targets)
		return targets.error();
	if (targets->empty())
		return fail("no PMU targets to encode '" + cli.pmu_encode + "' for (name them with "
			    "--pmu-targets; this machine's CPU matches no " +
			    std::string(arch_name(arch)) + " PMU table)");
	bool any = false;
	for (const std::string &t : *targets) {
		pmu::TargetEncoding te = pmu::Resolver::encode(cli.pmu_encode, t);
		any |= te.enc.has_value();
		std::cout << pmu::format_encoding(te) << "\n";
	}
	return any ? 0 : 1;
}

Result<int> list_pmu_events(const Cli &cli)
{
	Result<std::vector<std::string>> targets = cli_pmu_targets(cli, nullptr);
	if (!targets)
		return targets.error();
	std::cout << pmu::list_events(*targets);
	return 0;
}

} // namespace stap_pmu
