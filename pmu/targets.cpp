// targets.cpp - expand --pmu-targets into PMU names: host, all, intel, amd,
// perf and PMU names (libpfm4's x86 core PMUs, the arm64 and hybrid Intel
// tables').
#include "pmu/arm64.h"
#include "pmu/intel_hybrid.h"
#include "pmu/internal.h"
#include "pmu/pmu.h"
#include "translator/support/suggest.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace stap_pmu::pmu {
namespace {

constexpr size_t max_suggestions = 5;

// Names a user may give: core PMUs that have a CPU match (so a fat module
// can select them) and the generic PMU.
std::vector<std::string> selectable_pmus()
{
	std::vector<std::string> out;
	for (const auto &p : detail::pmu_inventory()) {
		bool ok = p.kind == detail::PmuKind::core ? !Resolver::cpu_matches(p.name).empty()
							  : p.name == detail::generic_pmu;
		if (ok)
			out.push_back(p.name);
	}
	for (const auto &p : detail::hybrid_pmus())
		out.emplace_back(p.name);
	for (const auto &p : detail::arm_pmus()) {
		out.emplace_back(p.name);
		out.emplace_back(p.alias);
	}
	return out;
}

std::string unknown_pmu_error(const std::string &name)
{
	auto known = selectable_pmus();
	auto close = nearest_names(name, known, max_suggestions);
	if (close.empty())
		close.assign(known.begin(), known.begin() + std::min(known.size(), max_suggestions));
	return fmt::format("unknown PMU '{}' (known: host, all, intel, amd, {}, ...)", name,
			   fmt::join(close, ", "));
}

// Resolve one user-given name to a canonical PMU name.
Result<std::string> resolve_name(const std::string &name)
{
	if (const detail::ArmPmu *arm = detail::find_arm_pmu(name))
		return std::string(arm->name);
	if (const detail::HybridPmu *h = detail::find_hybrid_pmu(name))
		return std::string(h->name);
	const detail::PmuDesc *p = detail::find_pmu(name);
	if (p && p->name == detail::generic_pmu)
		return std::string(p->name);
	if (p && p->kind == detail::PmuKind::core) {
		if (!Resolver::cpu_matches(p->name).empty())
			return std::string(p->name);
		return fail(fmt::format("PMU '{}' cannot be a target: no CPU model selects it "
					"(architectural or deprecated table)", p->name));
	}
	if (p)
		return fail(fmt::format("PMU '{}' cannot be a target: only CPU core PMUs and "
					"'perf' are supported", p->name));
	return fail(unknown_pmu_error(name));
}

// Every core PMU of ARCH whose match entries are of VENDOR ("" any).
std::vector<std::string> group(Arch arch, std::string_view vendor)
{
	std::vector<std::string> out;
	if (arch == Arch::Arm64) {
		for (const auto &p : detail::arm_pmus())
			out.emplace_back(p.name);
		return out;
	}
	for (const auto &name : Resolver::matched_pmus()) {
		auto m = Resolver::cpu_matches(name);
		if (vendor.empty() || m.front().vendor == vendor)
			out.push_back(name);
	}
	return out;
}

} // namespace

Result<std::vector<std::string>> Resolver::expand_targets(const std::vector<std::string> &spec)
{
	// The architecture of the first named PMU, else the host's.
	for (const auto &item : spec) {
		const detail::ArmPmu *arm = detail::find_arm_pmu(item);
		if (arm)
			return expand_targets(spec, Arch::Arm64);
		if (pmu_arch(item))
			break;
	}
	return expand_targets(spec, host_arch());
}

Result<std::vector<std::string>> Resolver::expand_targets(const std::vector<std::string> &spec,
							  Arch arch)
{
	if (auto st = init(); !st)
		return st.error();

	std::vector<std::string> out;
	bool want_generic = false;
	auto add = [&](const std::string &name) {
		if (name == detail::generic_pmu)
			want_generic = true;
		else if (std::find(out.begin(), out.end(), name) == out.end())
			out.push_back(name);
	};
	for (const auto &item : spec) {
		if (item == "host") {
			// a hybrid host: the PMUs of all its core types
			if (host_arch() == arch)
				for (const auto &p : pmus_for_model(host_cpu()))
					add(p);
			continue;
		}
		if (item == "all" || item == "intel" || item == "amd") {
			if (item != "all" && arch != Arch::X86_64)
				return fail(fmt::format("'{}' names x86 PMUs; the target architecture is {}",
							item, arch_name(arch)));
			std::string_view vendor = item == "intel" ? "GenuineIntel"
						  : item == "amd"   ? "AuthenticAMD"
								    : "";
			for (const auto &name : group(arch, vendor))
				add(name);
			continue;
		}
		auto name = resolve_name(item);
		if (!name)
			return name.error();
		if (auto a = pmu_arch(*name); a && *a != arch)
			return fail(fmt::format("PMU '{}' is an {} PMU; the target architecture is {}",
						item, arch_name(*a), arch_name(arch)));
		add(*name);
	}
	if (want_generic)
		out.emplace_back(detail::generic_pmu);
	return out;
}

} // namespace stap_pmu::pmu
