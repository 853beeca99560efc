// probe_kind.h - the probe point providers. Each kind lives in its own file
// and is found through the table in probe_kind.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "translator/frontend/ast.h"
#include "translator/frontend/diagnostics.h"
#include "translator/probes/kernel_facts.h"
#include "translator/probes/process_facts.h"

namespace stap_pmu {

enum class ProbeKind {
	Begin, End, Kprobe, Kretprobe, Timer, Error, Perf, Tracepoint, Never, ProcfsRead, ProcfsWrite,
	Uprobe, Uretprobe, // process("P").function/.statement/.mark/.plt, .return
	ProcessBegin, ProcessEnd, // process("P").begin/.end, process.begin/.end
	Netfilter, // netfilter.hook("H").pf("P")[.priority(N)]
};

// One probe point after resolution: what the runtime must register.
struct ResolvedPoint {
	ProbeKind kind = ProbeKind::Begin;
	std::string name;      // canonical spelling, e.g. kprobe.function("f").return
	std::string symbol;    // kprobes: kernel symbol, or "module:symbol"
	uint32_t offset = 0;   // kprobes: bytes into symbol (func@file:line)
	// kprobes on a kernel symbol: its distance to register_kprobe in the
	// target's symbol table (KernelFacts::symbol_delta), when known
	std::optional<SymbolDelta> sym_delta;
	// DWARF probe points: the function (for target variables); target
	// variables of the body, in the order of the body's spellings (sema)
	std::shared_ptr<const KernelFunction> func;
	std::vector<TargetAccess> tvars;
	// $$parms / $$vars / $$locals of a DWARF probe: each parameter's or
	// local's name and how to read it (nothing: printed as "?"), and which
	// of them are kernel pointers (printed as %p prints them)
	std::vector<std::pair<std::string, std::optional<TargetAccess>>> parms;
	uint64_t parm_ptrmask = 0;
	// $x$ and $x$$ of the body: (tvar index, depth) -> what they print;
	// $$parms$ and $$return$: depth -> each parameter's (nothing: "?") and
	// the return value's
	std::map<std::pair<size_t, int>, KernelFacts::Pretty> pretty;
	std::map<int, std::vector<std::optional<KernelFacts::Pretty>>> pretty_parms;
	std::map<int, std::optional<KernelFacts::Pretty>> pretty_return;
	// process probes: the ELF file (absolute path as on the target; "" for
	// process.begin/.end of any process), the probed instruction's file
	// offset (uprobe_register's offset) and link-time address (the run-time
	// load bias is ip - uvaddr), an SDT semaphore's file offset (0: none)
	std::string path;
	uint64_t uoffset = 0;
	uint64_t uvaddr = 0;
	uint64_t semaphore = 0;
	std::shared_ptr<const UserFunction> ufunc; // DWARF function probes: for $vars
	std::shared_ptr<const SdtMark> mark;       // .mark: $argN
	std::string tracepoint; // kernel.trace: the tracepoint's name ("sched_switch")
	uint64_t period_ns = 0; // timers
	uint64_t randomize_ns = 0; // timers: each period is period_ns +- up to this
	bool tick_period = false;  // timer.profile: perf::cpu-clock every TICK_NSEC
	bool in_jiffies = false;   // timer.jiffies: period_ns and randomize_ns count jiffies
	// netfilter: the hook, protocol family and priority to register
	int nf_hook = 0, nf_pf = 0, nf_priority = 0;
	uint32_t maxactive = 0;    // kretprobes: .maxactive(N), instances in flight (0: default)
	// procfs: the file's name in /proc/<module>/, .umask(U) (-1: none),
	// .maxsize(N) of a read probe (0: STP_PROCFS_BUFSIZE)
	std::string procfs_name;
	int procfs_umask = -1;
	uint32_t procfs_maxsize = 0;
	SourceLoc loc;
	// perf (sampling): the event ("perf::cpu-clock", "cycles", or
	// "perf.type(T).config(C)"), one of period/freq, and the event's index
	// in SemaResult::events (set by sema)
	std::string event;
	SourceLoc event_loc;
	uint64_t sample_period = 0;
	uint64_t sample_freq = 0;
	size_t event_index = SIZE_MAX;
};

// What resolving a probe point may use: where its errors go, and the
// target kernel's facts (kernel.function, kernel.trace).
struct ProbeContext {
	Diagnostics &diags;
	const KernelFacts &facts;
	const ProcessFacts *process = nullptr; // user binaries (nullptr: process probes
					       // report that they are not available)
};

struct ProbeProvider {
	const char *first;   // first component this provider owns: "kprobe", "timer"
	const char *summary; // for the "unknown probe point" hint
	// Resolves pp (whose first component is `first`); reports errors itself
	// and returns nothing on failure.
	std::optional<ResolvedPoint> (*resolve)(const ProbePoint &pp, const ProbeContext &ctx);
	// Providers whose points expand to several (wildcards) set this instead.
	std::optional<std::vector<ResolvedPoint>> (*resolve_many)(const ProbePoint &pp,
								  const ProbeContext &ctx) = nullptr;
	// Set: the provider owns only points whose second component is this
	// ("trace" of kernel.trace); it is tried before those of the same first.
	const char *second = nullptr;
};

// Providers, defined one per file in probes/.
extern const ProbeProvider begin_end_provider_begin;
extern const ProbeProvider begin_end_provider_end;
extern const ProbeProvider begin_end_provider_error;
extern const ProbeProvider kprobe_provider;
extern const ProbeProvider timer_provider;
extern const ProbeProvider perf_provider;
extern const ProbeProvider dwarf_kernel_provider;
extern const ProbeProvider dwarf_module_provider;
extern const ProbeProvider tracepoint_provider;
extern const ProbeProvider never_provider;
extern const ProbeProvider procfs_provider;
extern const ProbeProvider process_provider;
extern const ProbeProvider netfilter_provider;

// One /proc/<module>/NAME file of procfs probes: its read and write probe
// (indexes into the points given, SIZE_MAX: none), mode and read buffer size
// (0: the runtime's STP_PROCFS_BUFSIZE).
struct ProcfsFile {
	std::string name;
	size_t read = SIZE_MAX, write = SIZE_MAX;
	unsigned mode = 0;
	uint32_t bufsize = 0;
};
// The files of the procfs points among points, in order of first use;
// reports (to diags, when given) a second read or write probe of one file
// and umasks that differ.
std::vector<ProcfsFile> procfs_files(const std::vector<const ResolvedPoint *> &points,
				     Diagnostics *diags);

// ".maxactive(N)" right after ".return" at cs[at]: removed from cs, N in
// out. False (reported) when it is malformed.
bool take_maxactive(std::vector<ProbeComponent> &cs, size_t at, Diagnostics &diags,
		    uint32_t &out);

// Resolves any probe point, reporting unknown ones with the list of kinds.
std::optional<ResolvedPoint> resolve_probe_point(const ProbePoint &pp, const ProbeContext &ctx);
// The same, for every point a wildcard expands to.
std::optional<std::vector<ResolvedPoint>> resolve_probe_points(const ProbePoint &pp,
							       const ProbeContext &ctx);

// kernel.trace's "subsystem:event" split in two; the error unless both
// parts are there and only the event part has wildcards.
struct TracepointSpec {
	std::string sys, event;
};
Result<TracepointSpec> split_tracepoint_spec(const std::string &spec);

const char *probe_kind_name(ProbeKind k);

} // namespace stap_pmu
