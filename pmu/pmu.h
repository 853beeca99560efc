// pmu.h - PMU event resolution for stap-pmu. The only interface to libpfm4:
// nothing outside pmu/ includes <perfmon/...>.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "translator/support/arch.h"
#include "translator/support/result.h"

namespace stap_pmu::pmu {

// Target architecture of a module (support/arch.h): decides what "host"
// and "all" mean.
using stap_pmu::Arch;

// CPUID leaf 0x1A EAX[31:24], the core type of a hybrid Intel CPU.
inline constexpr unsigned core_type_atom = 0x20; // E-core
inline constexpr unsigned core_type_core = 0x40; // P-core

// One match entry in the style of the kernel's x86_cpu_id. vendor:
// "GenuineIntel", "AuthenticAMD" or "ARM" (arm64: family = MIDR implementer,
// model = part number, stepping = variant << 4 | revision, 0-255).
// core_type: 0 for any CPU of the model; on hybrid parts core_type_core
// (which a CPU reporting no core type also matches) or core_type_atom.
struct CpuMatch {
	std::string vendor;
	unsigned family = 0;
	unsigned model_min = 0, model_max = 0;
	unsigned stepping_min = 0, stepping_max = 15;
	unsigned core_type = 0;

	bool operator==(const CpuMatch &) const = default;
};

// perf_event_attr fields a module needs to create the counter.
struct Encoding {
	uint32_t type = 0;
	uint64_t config = 0;
	uint64_t config1 = 0;
	bool exclude_user = false, exclude_kernel = false, exclude_hv = false;
	bool exclude_guest = false, exclude_host = false;
	unsigned precise_ip = 0;

	bool operator==(const Encoding &) const = default;
};

// Result of encoding one event for one PMU.
struct TargetEncoding {
	std::string pmu;                 // libpfm4 PMU name: "skl", "perf"
	std::optional<Encoding> enc;     // empty: unavailable
	std::string reason;              // why unavailable (libpfm4's text)
	std::string fstr;                // fully qualified name libpfm4 chose
};

// A candidate row of the fat table: one target PMU, the CPUs it matches
// (empty = any CPU: the generic row) and one encoding per script event.
struct Row {
	std::string pmu;
	std::vector<CpuMatch> match;
	std::vector<Encoding> events;    // index = event index in the script
};

struct CpuId {
	std::string vendor;
	unsigned family = 0, model = 0, stepping = 0;
	unsigned core_type = 0;   // leaf 0x1A core type of a hybrid CPU; 0: none reported
};

// Whether a CPU of core type CPU_TYPE (0: none reported) is of an entry's
// core type ENTRY_TYPE: 0 takes any; a P-core entry also takes a CPU that
// reports none (a hybrid model without leaf 0x1A, as in a VM).
bool core_type_matches(unsigned entry_type, unsigned cpu_type);

class Resolver {
public:
	// Initializes libpfm4 with LIBPFM_ENCODE_INACTIVE so every PMU of the
	// build's tables can be encoded. Initializes once; later calls return the same result.
	static Status init();

	// Targets for --pmu-targets: "host" expands to the PMU matching this
	// machine's CPUID (nothing if none matches or the host is not of
	// ARCH), "all" to every core PMU of ARCH, "intel"/"amd" to the x86 ones
	// of that vendor; other names are PMU names (libpfm4's, or the arm64
	// table's). Unknown names are an error.
	static Result<std::vector<std::string>>
	expand_targets(const std::vector<std::string> &spec, Arch arch);
	// Same, for the architecture of the first named PMU, else the build host's.
	static Result<std::vector<std::string>>
	expand_targets(const std::vector<std::string> &spec);

	// The architecture a target PMU belongs to ("perf": nullopt, any).
	static std::optional<Arch> pmu_arch(const std::string &pmu);

	// The generic perf encoding of EVENT (a concept's generic event, or a
	// perf:: event name), as the generic row and --pmu-fallback generic use it.
	static TargetEncoding encode_generic(const std::string &event);

	// Encode EVENT ("INST_RETIRED:ANY_P:u", "llc-misses:u", "perf::cpu-clock")
	// for PMU "pmu". A portable concept (pmu/concepts.cpp) resolves to that
	// PMU's model event; an event already qualified ("skl::X") is encoded
	// only for that PMU. An unqualified name a CPU model's PMU does not know
	// but the generic perf PMU does ("cpu-clock") is encoded as the generic
	// perf event, which the kernel implements on every CPU; fstr then starts
	// with "perf::".
	static TargetEncoding encode(const std::string &event, const std::string &pmu);

	// Up to n known event names closest to a misspelled one (edit distance),
	// searched over the given PMUs.
	static std::vector<std::string> closest(const std::string &event,
						const std::vector<std::string> &pmus, size_t n = 3);

	// CPU match list for a PMU (empty for "perf", the generic row).
	static std::vector<CpuMatch> cpu_matches(const std::string &pmu);

	// The host CPU's identity (the core type of the CPU this runs on) and
	// the PMU it matches, if any.
	static CpuId host_cpu();
	static std::optional<std::string> pmu_for_cpu(const CpuId &cpu);

	// Every PMU whose match entries contain CPU with any core type (both
	// core types of a hybrid model), in table order.
	static std::vector<std::string> pmus_for_model(const CpuId &cpu);

	// Every PMU name the CPU match table can select, in table order.
	static std::vector<std::string> matched_pmus();

	// libpfm4 version as "4.13".
	static std::string pfm_version();
};

// The line --pmu-encode prints for one target:
// "skl type=4 config=0xc0 config1=0x0 exclude_kernel=1 exclude_guest=1"
// or "icl unavailable: event not found".
std::string format_encoding(const TargetEncoding &t);

// What --list-pmu-events prints for TARGETS (expanded PMU names), like perf
// list: the portable concepts with the event each target uses, then per PMU
// every event (EVENT and EVENT:UMASK), its description and its modifiers.
std::string list_events(const std::vector<std::string> &targets);

} // namespace stap_pmu::pmu
