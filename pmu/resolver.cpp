// resolver.cpp - libpfm4 initialization, the PMU inventory and encode().
#include "pmu/arm64.h"
#include "pmu/concepts.h"
#include "pmu/intel_hybrid.h"
#include "pmu/internal.h"
#include "pmu/pmu.h"

#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <strings.h>

#include <fmt/format.h>

namespace stap_pmu::pmu {
namespace {

struct InitState {
	std::optional<std::string> error;
	std::vector<detail::PmuDesc> pmus;
};

detail::PmuKind kind_of(pfm_pmu_type_t type)
{
	switch (type) {
	case PFM_PMU_TYPE_CORE:
		return detail::PmuKind::core;
	case PFM_PMU_TYPE_OS_GENERIC:
		return detail::PmuKind::generic;
	default:
		return detail::PmuKind::other;
	}
}

std::vector<detail::PmuDesc> scan_pmus()
{
	std::vector<detail::PmuDesc> out;
	for (int i = 0; i < PFM_PMU_MAX; ++i) {
		pfm_pmu_info_t info{};
		info.size = sizeof(info);
		if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(i), &info) != PFM_SUCCESS || !info.name)
			continue;
		out.push_back({info.name, i, kind_of(info.type), info.nevents, info.first_event});
	}
	return out;
}

// libpfm4 is initialized once per process: 4.13 cannot be re-initialized
// safely (pfm_terminate leaves PMUs marked active).
const InitState &state()
{
	static InitState st;
	static std::once_flag once;
	std::call_once(once, [] {
		// Encode for every PMU of the tables, not only the host's.
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
		// A forced PMU would hide the others (and is unsafe): never honour it.
		unsetenv("LIBPFM_FORCE_PMU");
		int ret = pfm_initialize();
		if (ret != PFM_SUCCESS) {
			st.error = fmt::format("cannot initialize libpfm4: {}", pfm_strerror(ret));
			return;
		}
		st.pmus = scan_pmus();
	});
	return st;
}

// "skl::INST_RETIRED" -> "skl"; "" when unqualified.
std::string_view qualifier(std::string_view event)
{
	auto pos = event.find("::");
	return pos == std::string_view::npos ? std::string_view{} : event.substr(0, pos);
}

bool iequals(std::string_view a, std::string_view b)
{
	return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

Encoding to_encoding(const perf_event_attr &attr)
{
	Encoding e;
	e.type = attr.type;
	e.config = attr.config;
	e.config1 = attr.config1;
	e.exclude_user = attr.exclude_user;
	e.exclude_kernel = attr.exclude_kernel;
	e.exclude_hv = attr.exclude_hv;
	e.exclude_guest = attr.exclude_guest;
	e.exclude_host = attr.exclude_host;
	e.precise_ip = attr.precise_ip;
	return e;
}

// Whether an event's modifiers count the hypervisor level: ":h" or ":h=1".
bool asks_for_hv(std::string_view event)
{
	if (auto q = event.find("::"); q != std::string_view::npos)
		event.remove_prefix(q + 2);
	auto mods = detail::split_modifiers(event).second;
	while (!mods.empty()) {
		mods.remove_prefix(1); // the ':'
		std::string_view m = mods.substr(0, mods.find(':'));
		mods.remove_prefix(m.size());
		if (iequals(m, "h") || iequals(m, "h=1"))
			return true;
	}
	return false;
}

// Encode one fully qualified event into out.enc and out.fstr; on failure,
// libpfm4's reason.
Status encode_one(const std::string &qualified, TargetEncoding &out)
{
	perf_event_attr attr{};
	attr.size = sizeof(attr);
	char *fstr = nullptr;
	pfm_perf_encode_arg_t arg{};
	arg.size = sizeof(arg);
	arg.attr = &attr;
	arg.fstr = &fstr;
	int ret = pfm_get_os_event_encoding(qualified.c_str(), PFM_PLM0 | PFM_PLM3,
					    PFM_OS_PERF_EVENT_EXT, &arg);
	std::unique_ptr<char, decltype(&std::free)> fstr_owner(fstr, &std::free);
	if (ret != PFM_SUCCESS)
		return fail(pfm_strerror(ret));
	out.enc = to_encoding(attr);
	out.fstr = fstr ? fstr : "";
	// libpfm4 gives a generic perf event the privilege levels of the
	// build host's core PMU (exclude_hv=1 on an AMD host, 0 on an Intel
	// one): the generic row serves any CPU, so it excludes the hypervisor
	// level unless the event asks for it (:h), as on the arm64 rows.
	if (iequals(qualifier(qualified), detail::generic_pmu))
		out.enc->exclude_hv = !asks_for_hv(qualified);
	return {};
}

} // namespace

namespace detail {

const std::vector<PmuDesc> &pmu_inventory()
{
	return state().pmus;
}

const PmuDesc *find_pmu(std::string_view name)
{
	for (const auto &p : pmu_inventory())
		if (iequals(p.name, name))
			return &p;
	return nullptr;
}

} // namespace detail

Status Resolver::init()
{
	if (const auto &e = state().error)
		return fail(*e);
	return {};
}

namespace {

// A concept ("llc-misses:u") for one PMU: the first of its candidates the
// PMU can encode, with the user's modifiers appended.
TargetEncoding encode_concept(const detail::Concept &c, std::string_view mods,
			      const std::string &pmu)
{
	TargetEncoding out;
	out.pmu = pmu;
	std::string reason;
	for (const std::string &cand : detail::concept_candidates(c, pmu)) {
		if (cand.empty())
			continue;
		TargetEncoding t = Resolver::encode(cand + std::string(mods), pmu);
		if (t.enc)
			return t;
		if (reason.empty())
			reason = t.reason;
	}
	out.reason = fmt::format("no {} event for {}", pmu, c.name);
	return out;
}

// EVENT for a PMU of the project's own tables (arm64, hybrid Intel): the
// table's encoding, else a generic perf event (valid in every row, see
// Resolver::encode), else the table's reason.
template <typename Fn>
TargetEncoding encode_own(const std::string &event, std::string_view name, TargetEncoding &out,
			  Fn encode_table)
{
	out.pmu = name;
	Result<Encoding> e = encode_table();
	if (e) {
		out.enc = *e;
		std::string_view ev = event;
		if (auto q = ev.find("::"); q != std::string_view::npos)
			ev.remove_prefix(q + 2);
		out.fstr = fmt::format("{}::{}", name, ev);
		return out;
	}
	auto q = qualifier(event);
	if ((q.empty() || iequals(q, detail::generic_pmu)) &&
	    encode_one(q.empty() ? fmt::format("{}::{}", detail::generic_pmu, event) : event, out))
		return out;
	out.reason = e.error().what;
	return out;
}

} // namespace

TargetEncoding Resolver::encode_generic(const std::string &event)
{
	if (qualifier(event).empty()) {
		auto [base, mods] = detail::split_modifiers(event);
		if (const detail::Concept *c = detail::find_concept(base))
			return encode(std::string(c->generic) + std::string(mods),
				      std::string(detail::generic_pmu));
	}
	return encode(event, std::string(detail::generic_pmu));
}

TargetEncoding Resolver::encode(const std::string &event, const std::string &pmu)
{
	TargetEncoding out;
	out.pmu = pmu;
	if (auto st = init(); !st) {
		out.reason = st.error().what;
		return out;
	}
	if (!detail::find_arm_pmu(pmu) && !detail::find_hybrid_pmu(pmu) && !detail::find_pmu(pmu)) {
		out.reason = fmt::format("unknown PMU '{}'", pmu);
		return out;
	}
	if (qualifier(event).empty()) {
		auto [base, mods] = detail::split_modifiers(event);
		if (const detail::Concept *c = detail::find_concept(base)) {
			if (iequals(pmu, detail::generic_pmu))
				return encode_generic(event);
			return encode_concept(*c, mods, pmu);
		}
	}
	if (const detail::ArmPmu *arm = detail::find_arm_pmu(pmu))
		return encode_own(event, arm->name, out,
				  [&] { return detail::encode_arm(event, *arm); });
	if (const detail::HybridPmu *h = detail::find_hybrid_pmu(pmu))
		return encode_own(event, h->name, out,
				  [&] { return detail::encode_hybrid(event, *h); });
	const detail::PmuDesc *desc = detail::find_pmu(pmu);
	if (!desc) {
		out.reason = fmt::format("unknown PMU '{}'", pmu);
		return out;
	}
	out.pmu = desc->name;

	std::string qualified;
	if (auto q = qualifier(event); !q.empty()) {
		// Generic perf events (perf::cpu-clock) are valid in every row:
		// the kernel implements them on every CPU model.
		bool generic = iequals(q, detail::generic_pmu) && desc->kind == detail::PmuKind::core;
		if (!iequals(q, desc->name) && !generic) {
			out.reason = fmt::format("event is qualified for pmu {}", q);
			return out;
		}
		qualified = event;
	} else {
		qualified = fmt::format("{}::{}", desc->name, event);
	}

	Status st = encode_one(qualified, out);
	if (st)
		return out;
	// A generic perf event name ("cpu-clock", "bus-cycles") for a CPU
	// model's PMU: the kernel implements PERF_TYPE_HARDWARE/SOFTWARE/
	// HW_CACHE for every core PMU, so the generic encoding is valid there.
	if (qualifier(event).empty() && desc->kind == detail::PmuKind::core &&
	    encode_one(fmt::format("{}::{}", detail::generic_pmu, event), out))
		return out;
	out.reason = st.error().what;
	return out;
}

} // namespace stap_pmu::pmu
