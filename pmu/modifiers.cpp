// modifiers.cpp - the privilege modifiers of events in the project's own
// tables (arm64, hybrid Intel), which take only :u and :k.
#include "pmu/internal.h"

#include <strings.h>

namespace stap_pmu::pmu::detail {
namespace {

bool iequals(std::string_view a, std::string_view b)
{
	return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

} // namespace

Status apply_uk_modifiers(std::string_view mods, Encoding &e)
{
	bool u = false, k = false;
	while (!mods.empty()) {
		mods.remove_prefix(1); // ':'
		std::string_view m = mods.substr(0, mods.find(':'));
		mods.remove_prefix(m.size());
		if (iequals(m, "u"))
			u = true;
		else if (iequals(m, "k"))
			k = true;
		else
			return fail("invalid event attribute");
	}
	if (u && !k)
		e.exclude_kernel = true;
	if (k && !u)
		e.exclude_user = true;
	return {};
}

} // namespace stap_pmu::pmu::detail
