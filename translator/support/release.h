// release.h - what a kernel release string ("uname -r") says: one place
// for the version and line splitting pass 1 and kernel discovery share.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stap_pmu {

// "6.1.0-57-amd64" -> {"6.1", "amd64"}; "6.12.117+deb12-rt-amd64" -> {"6.12",
// "rt-amd64"}; "6.1.192" -> {"6.1", ""}. nullopt when r is no kernel release.
struct ReleaseName {
	std::string line;    // major.minor
	std::string flavour; // what follows the version, Debian's ABI number and "+debN"
};
std::optional<ReleaseName> parse_release(std::string_view r);

// The release up to its first '-', SystemTap's kernel_v: "6.1.0-57-amd64"
// -> "6.1.0"; a release without a '-' is its own version.
std::string release_version(std::string_view release);

} // namespace stap_pmu
