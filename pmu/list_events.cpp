// list_events.cpp - the text of --list-pmu-events.
#include "pmu/arm64.h"
#include "pmu/concepts.h"
#include "pmu/intel_hybrid.h"
#include "pmu/internal.h"
#include "pmu/pmu.h"

#include <perfmon/pfmlib.h>

#include <cctype>

#include <fmt/format.h>

namespace stap_pmu::pmu {
namespace {

constexpr int name_width = 40;

std::string entry(std::string_view name, std::string_view desc)
{
	std::string d(desc);
	for (char &c : d)
		if (c == '\n' || c == '\t')
			c = ' ';
	return fmt::format("  {:<{}} {}\n", name, name_width - 1, d);
}

// ":u :k :c=N ..." for one libpfm4 event's modifiers.
std::string modifiers(int idx, int nattrs)
{
	std::string out;
	for (int a = 0; a < nattrs; ++a) {
		pfm_event_attr_info_t at{};
		at.size = sizeof(at);
		// PFM_OS_NONE: the hardware modifiers, not perf's period/freq/cpu
		if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &at) != PFM_SUCCESS ||
		    at.type == PFM_ATTR_UMASK || !at.name)
			continue;
		out += fmt::format(" :{}{}", at.name, at.type == PFM_ATTR_MOD_INTEGER ? "=N" : "");
	}
	return out;
}

void list_libpfm(const detail::PmuDesc &pmu, std::string &out)
{
	for (int idx = pmu.first_event; idx >= 0; idx = pfm_get_event_next(idx)) {
		pfm_event_info_t ev{};
		ev.size = sizeof(ev);
		if (pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS || !ev.name)
			continue;
		out += entry(ev.name, ev.desc ? ev.desc : "");
		for (int a = 0; a < ev.nattrs; ++a) {
			pfm_event_attr_info_t at{};
			at.size = sizeof(at);
			if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &at) != PFM_SUCCESS ||
			    at.type != PFM_ATTR_UMASK || !at.name)
				continue;
			out += entry(fmt::format("{}:{}", ev.name, at.name), at.desc ? at.desc : "");
		}
		if (std::string m = modifiers(idx, ev.nattrs); !m.empty())
			out += fmt::format("  {:<{}} modifiers:{}\n", "", name_width - 1, m);
	}
}

} // namespace

std::string list_events(const std::vector<std::string> &targets)
{
	std::string out = "Portable events (resolved per target; append :u or :k):\n";
	for (const auto &c : detail::concepts()) {
		out += entry(c.name, c.description);
		std::string uses;
		for (const auto &t : targets) {
			TargetEncoding te = Resolver::encode(std::string(c.name), t);
			std::string what = te.enc ? te.fstr : "-";
			if (auto q = what.find("::"); q != std::string::npos && what.compare(0, q, t) == 0)
				what.erase(0, q + 2);
			// libpfm4 spells out every modifier (":k=1:u=1:e=0..."): drop them
			for (size_t m = 0; (m = what.find(':', m)) != std::string::npos; ++m)
				if (m + 1 < what.size() && std::islower(static_cast<unsigned char>(what[m + 1]))) {
					what.erase(m);
					break;
				}
			uses += fmt::format(" {}={}", t, what);
		}
		if (!uses.empty())
			out += fmt::format("  {:<{}}{}\n", "", name_width - 1, uses);
	}
	for (const auto &t : targets) {
		if (const detail::ArmPmu *arm = detail::find_arm_pmu(t)) {
			out += fmt::format("\n{} events ({}, ARMv8 PMUv3 common events; "
					   "modifiers: :u :k):\n",
					   arm->name, arm->description);
			for (const auto &e : detail::arm_events())
				out += entry(e.name, fmt::format("{} (0x{:02x})", e.description, e.number));
			continue;
		}
		if (const detail::HybridPmu *h = detail::find_hybrid_pmu(t)) {
			out += fmt::format("\n{} events ({}, core type 0x{:02x}; Intel perfmon "
					   "encodings; modifiers: :u :k):\n",
					   h->name, h->description, h->core_type);
			for (const auto &e : h->events)
				out += entry(e.name, fmt::format("{} (event 0x{:02x} umask 0x{:02x}{})",
								 e.description, e.code, e.umask,
								 e.cmask ? fmt::format(" cmask {}{}", e.cmask,
										       e.edge ? " edge" : "")
									 : ""));
			continue;
		}
		const detail::PmuDesc *pmu = detail::find_pmu(t);
		if (!pmu)
			continue;
		out += fmt::format("\n{} events:\n", pmu->name);
		list_libpfm(*pmu, out);
	}
	return out;
}

} // namespace stap_pmu::pmu
