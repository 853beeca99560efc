// format.cpp - the one-line text --pmu-encode prints per target.
#include "pmu/pmu.h"

#include <fmt/format.h>

namespace stap_pmu::pmu {

std::string format_encoding(const TargetEncoding &t)
{
	if (!t.enc)
		return fmt::format("{} unavailable: {}", t.pmu, t.reason);
	const Encoding &e = *t.enc;
	std::string out = fmt::format("{} type={} config={:#x} config1={:#x}", t.pmu, e.type,
				      e.config, e.config1);
	const std::pair<bool, const char *> flags[] = {
		{e.exclude_user, "exclude_user"},   {e.exclude_kernel, "exclude_kernel"},
		{e.exclude_hv, "exclude_hv"},       {e.exclude_guest, "exclude_guest"},
		{e.exclude_host, "exclude_host"},
	};
	for (const auto &[set, name] : flags)
		if (set)
			out += fmt::format(" {}=1", name);
	if (e.precise_ip)
		out += fmt::format(" precise_ip={}", e.precise_ip);
	return out;
}

} // namespace stap_pmu::pmu
