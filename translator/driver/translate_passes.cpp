// translate_passes.cpp - running passes 1-3.
#include "translator/driver/translate_passes.h"

#include <fnmatch.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ostream>
#include <set>

#include "pmu/fat_table.h"
#include "pmu/pmu.h"
#include "translator/codegen/codegen.h"
#include "translator/frontend/parser.h"
#include "translator/frontend/tapsets.h"
#include "translator/sema/builtins.h"

namespace stap_pmu {

Parsed parse_pass(std::unique_ptr<SourceFile> source, Diagnostics &diags)
{
	return parse_pass(std::move(source), ParseOptions{}, diags);
}

Parsed parse_pass(std::unique_ptr<SourceFile> source, const ParseOptions &opts,
		  Diagnostics &diags)
{
	Parsed p;
	p.script = parse(*source, diags, opts.pp);
	p.source = std::move(source);
	bool any = false;
	for (const Probe &pr : p.script.probes)
		any |= !pr.is_alias;
	if (!diags.has_errors() && !any)
		diags.error({p.source.get(), 1, 1}, "script has no probes",
			    "add one, e.g. probe begin { printf(\"hello\\n\"); exit() }");
	if (diags.has_errors())
		return p;
	TapsetLibrary tapsets = open_tapsets(opts.tapset_dirs, opts.pp);
	if (opts.syscall_tapsets && needs_syscall_aliases(p.script, tapsets))
		if (std::optional<std::string> d = opts.syscall_tapsets(opts.pp))
			open_more_tapsets(tapsets, {*d});
	if (!tapsets.files.empty())
		p.tapset_sources = resolve_tapsets(p.script, tapsets, builtin_names(), diags);
	return p;
}

// Whether the script's probe points, or the points of the tapset aliases
// they name (signal.syskill is syscall.kill), name a generated syscall.*
// alias: only then is the kernel's syscall tapset generated and loaded.
bool needs_syscall_aliases(const Script &script, TapsetLibrary &tapsets)
{
	std::vector<std::string> todo;
	for (const Probe &pr : script.probes)
		for (const ProbePoint &pp : pr.points)
			todo.push_back(probe_point_str(pp));
	std::set<const Probe *> seen;
	while (!todo.empty()) {
		std::string point = std::move(todo.back());
		todo.pop_back();
		if (may_name_syscall_alias(point))
			return true;
		for (size_t i = 0; i < tapsets.files.size(); i++) {
			if (!tapsets.may_define(i, point))
				continue; // it has no alias the point can name
			for (const Probe &a : tapsets.file(i).script.probes) {
				if (!a.is_alias || seen.count(&a))
					continue;
				bool named = false;
				for (const ProbePoint &n : a.alias_names)
					named |= point_names_alias(point, probe_point_str(n));
				if (!named)
					continue;
				seen.insert(&a);
				for (const ProbePoint &pp : a.points)
					todo.push_back(probe_point_str(pp));
			}
		}
	}
	return false;
}

bool may_name_syscall_alias(const std::string &point)
{
	std::string first = point.substr(0, point.find_first_of(".("));
	return fnmatch(first.c_str(), "syscall", 0) == 0 ||
	       fnmatch(first.c_str(), "nd_syscall", 0) == 0 ||
	       fnmatch(first.c_str(), "syscall_any", 0) == 0;
}

// The symbols and CFI of the binaries whose user addresses the module
// names: the process probes' files, -d's (an error when one cannot be
// read), the target's program (skipped when it is not an ELF file the
// facts find, e.g. a shell builtin) and with --ldd the shared libraries and
// program interpreters of all these.
static void collect_user_binaries(Elaborated &e, const TranslateOptions &opts,
				  const ProcessFacts &process, Diagnostics &diags)
{
	std::vector<std::string> paths = e.user_files;
	auto add = [&](const std::string &name, bool must) {
		Result<std::string> path = process.resolve_path(name);
		if (!path) {
			if (must)
				diags.error({}, "-d: " + path.error().what,
					    path.error().hint);
			return;
		}
		if (std::find(paths.begin(), paths.end(), *path) == paths.end())
			paths.push_back(*path);
	};
	for (const std::string &f : opts.symbol_files)
		add(f, true);
	if (!opts.target_program.empty())
		add(opts.target_program, false);
	if (opts.ldd)
		for (size_t i = 0, n = paths.size(); i < n; i++)
			for (const std::string &lib : process.needed_libraries(paths[i]))
				if (std::find(paths.begin(), paths.end(), lib) == paths.end())
					paths.push_back(lib);
	for (const std::string &path : paths) {
		Result<UserUnwindData> u = process.unwind_data(path);
		if (u)
			e.user_binaries.push_back(std::move(*u));
		else
			diags.error({}, u.error().what, u.error().hint);
	}
}

Elaborated elaborate_pass(const Parsed &p, const TranslateOptions &opts, const KernelFacts *facts,
			  Diagnostics &diags)
{
	return elaborate_pass(p, opts, facts, nullptr, diags);
}

Elaborated elaborate_pass(const Parsed &p, const TranslateOptions &opts, const KernelFacts *facts,
			  const ProcessFacts *process, Diagnostics &diags)
{
	Elaborated e;
	e.sema = analyze(p.script, facts, process, diags, opts.guru);
	if (diags.has_errors())
		return e;
	for (const ProbeInstance &pi : e.sema.instances)
		if (!pi.point.path.empty() && std::find(e.user_files.begin(), e.user_files.end(),
							pi.point.path) == e.user_files.end())
			e.user_files.push_back(pi.point.path);
	if (e.sema.user_symbols && process)
		collect_user_binaries(e, opts, *process, diags);
	// @pmu_thread: per-task counters of the target with -c/-x; without a
	// target when the module loads (also --vm-at-boot), every task's count
	// from the CPU-wide counters and sched_switch (runtime/stp_pmu_tasks.h)
	PmuOptions po;
	po.targets = opts.pmu_targets;
	po.fallback = opts.pmu_fallback;
	po.arch = opts.arch;
	e.pmu = resolve_pmu_events(e.sema.events, po, diags);
	return e;
}

std::string script_hash(const std::string &text, const TranslateOptions &opts)
{
	uint64_t h = 0xcbf29ce484222325ull;
	auto mix = [&h](const std::string &s) {
		for (unsigned char c : s) {
			h ^= c;
			h *= 0x100000001b3ull;
		}
		h ^= 0xff;
		h *= 0x100000001b3ull;
	};
	mix(text);
	for (const std::string &t : opts.pmu_targets)
		mix(t);
	mix(opts.pmu_fallback);
	mix(arch_name(opts.arch));
	for (auto &[n, v] : opts.defines)
		mix(n + "=" + v);
	mix(opts.version);
	mix(opts.guru ? "guru" : "");
	for (const std::string &a : opts.script_args)
		mix("arg=" + a);
	char buf[17];
	std::snprintf(buf, sizeof(buf), "%016" PRIx64, h);
	return buf;
}

Translated translate_pass(const Parsed &p, const Elaborated &e, const TranslateOptions &opts)
{
	Translated t;
	t.script_hash = script_hash(p.source->text(), opts);
	t.module_name = opts.module_name.empty() ? "stap_pmu_" + t.script_hash.substr(0, 10)
						 : opts.module_name;
	CodegenInput in;
	in.script = &p.script;
	in.sema = &e.sema;
	in.module_name = t.module_name;
	in.script_hash = t.script_hash;
	in.version = opts.version;
	in.defines = opts.defines;
	in.guru = opts.guru;
	in.user_binaries = e.user_binaries;
	if (!e.sema.events.empty()) {
		in.pmu_targets = pmu::pmu_targets_string(e.pmu.table);
		in.pmu_tables_c = pmu::emit_pmu_tables(e.pmu.table);
	}
	t.c_source = generate_c(in);
	return t;
}

static std::string match_str(const pmu::CpuMatch &m)
{
	std::string s = m.vendor + " " + std::to_string(m.family) + "/" + std::to_string(m.model_min);
	if (m.model_max != m.model_min)
		s += "-" + std::to_string(m.model_max);
	if (m.stepping_min != 0 || m.stepping_max != 15)
		s += " stepping " + std::to_string(m.stepping_min) + "-" +
		     std::to_string(m.stepping_max);
	if (m.core_type) // hybrid Intel: CPUID leaf 0x1A core type
		s += m.core_type == pmu::core_type_atom ? " core type 0x20 (Atom)"
							: " core type 0x40 (Core)";
	return s;
}

void print_elaborated(const Parsed &p, const Elaborated &e, std::ostream &os)
{
	(void)p;
	os << "# probes\n";
	for (const ProbeInstance &pi : e.sema.instances)
		os << pi.point.name << " /* " << probe_kind_name(pi.point.kind) << ", "
		   << pi.point.loc.str() << " */\n";
	if (!e.sema.globals.empty()) {
		os << "# globals\n";
		for (auto &g : e.sema.globals)
		{
			os << g->name;
			if (g->array) {
				os << "[";
				for (size_t k = 0; k < g->keys.size(); k++)
					os << (k ? "," : "") << type_name(g->keys[k]);
				os << "]";
			}
			os << ":" << type_name(g->type) << "\n";
		}
	}
	for (size_t i = 0; i < e.sema.bodies.size(); i++) {
		const ProbeBody &b = e.sema.bodies[i];
		if (b.locals.empty())
			continue;
		os << "# locals of probe at " << b.probe->loc.str() << "\n";
		for (auto &l : b.locals)
			os << l->name << ":" << type_name(l->type) << "\n";
	}
	if (e.sema.events.empty())
		return;
	os << "# events\n";
	for (size_t i = 0; i < e.sema.events.size(); i++) {
		os << i << " " << e.sema.events[i].name;
		if (e.sema.events[i].per_thread)
			os << " /* per-thread */";
		if (e.sema.events[i].sampling) {
			if (e.sema.events[i].sample_freq)
				os << " /* sampling, " << e.sema.events[i].sample_freq << " Hz */";
			else if (e.sema.events[i].sample_period)
				os << " /* sampling, period " << e.sema.events[i].sample_period << " */";
			else
				os << " /* sampling, every tick (timer.profile) */";
		}
		if (i < e.pmu.table.missing.size() && !e.pmu.table.missing[i].empty()) {
			os << " /* missing on:";
			for (const auto &m : e.pmu.table.missing[i])
				os << " " << m.pmu;
			os << " */";
		}
		if (i < e.pmu.table.generic.size() && !e.pmu.table.generic[i].empty()) {
			os << " /* generic encoding on:";
			for (const auto &g : e.pmu.table.generic[i])
				os << " " << g;
			os << " */";
		}
		os << "\n";
	}
	os << "# pmu rows (" << pmu::pmu_tables_size(e.pmu.table) << " bytes)\n";
	for (const pmu::Row &r : e.pmu.table.rows) {
		os << r.pmu << ":";
		if (r.match.empty())
			os << " any CPU";
		for (size_t i = 0; i < r.match.size(); i++)
			os << (i ? ", " : " ") << match_str(r.match[i]);
		os << "\n";
		for (size_t i = 0; i < r.events.size(); i++) {
			pmu::TargetEncoding te{r.pmu, r.events[i], "", ""};
			std::string line = pmu::format_encoding(te);
			os << "  " << e.sema.events[i].name << ": " << line.substr(r.pmu.size() + 1) << "\n";
		}
	}
	for (const auto &d : e.pmu.table.dropped)
		os << "# no row for " << d.pmu << ": " << d.reason << "\n";
}

} // namespace stap_pmu
