// codegen_tables.cpp - Emitter: globals (scalars, per-CPU statistics, arrays), map, probe and target-variable tables.
#include "translator/codegen/codegen_impl.h"

#include <cstdio>

namespace stap_pmu::codegen_impl {

void Emitter::globals()
{
	if (sema_.globals.empty())
		return;
	os_ << "/* globals */\n";
	for (auto &g : sema_.globals) {
		const std::string n = "g_" + g->name;
		if (g->array) {
			std::string hd = "NULL";
			if (g->type == Type::Stats) {
				hdesc(*g);
				hd = "&stp_hd_" + g->name;
			}
			os_ << "static __maybe_unused struct stp_map " << n << " = {\n"
			    << "\t.name = " << c_string(g->name) << ",\n"
			    << "\t.cap = " << (g->size ? std::to_string(g->size) : "STP_MAXMAPENTRIES")
			    << ",\n\t.nkeys = " << std::max(g->arity, 0) << ",\n\t.ktype = {";
			for (size_t k = 0; k < g->keys.size(); k++)
				os_ << (k ? ", " : " ") << ctype_enum(g->keys[k]);
			os_ << " },\n\t.vtype = " << ctype_enum(g->type) << ",\n"
			    << "\t.wrap = " << (g->wrap ? "true" : "false") << ",\n"
			    << "\t.hist = " << hd << ",\n};\n";
			continue;
		}
		switch (g->type) {
		case Type::String:
			os_ << "static __maybe_unused char " << n << "[STP_MAXSTRINGLEN]";
			if (g->init)
				os_ << " = " << c_string(g->init->text);
			os_ << ";\n";
			break;
		case Type::Stats:
			scalar_stat(*g);
			break;
		default:
			if (g->storage == Storage::PerCpu) {
				percpu_number(*g);
				break;
			}
			os_ << "static __maybe_unused s64 " << n;
			if (g->init)
				os_ << " = " << c_int64(g->init->number);
			os_ << ";\n";
			break;
		}
	}
	global_locks();
	os_ << "\n";
}

// One lock per shared global that some probe takes (a body holds the locks
// of the globals it and its callees touch: runtime/stp_handlers.h).
void Emitter::global_locks()
{
	std::set<const Symbol *> locked;
	for (const ProbeBody &b : sema_.bodies)
		locked.insert(b.locks.begin(), b.locks.end());
	for (auto &g : sema_.globals)
		if (locked.count(g.get()))
			os_ << "static DEFINE_RAW_SPINLOCK(g_" << g->name << "_lock);\n";
}

// The locks of each body that takes any, in the globals' declaration order
// (every body takes them in that order).
void Emitter::lock_tables()
{
	for (size_t b = 0; b < sema_.bodies.size(); b++) {
		const std::set<const Symbol *> &locks = sema_.bodies[b].locks;
		if (locks.empty())
			continue;
		os_ << "static raw_spinlock_t *const stp_locks_" << b << "[] = {";
		const char *sep = " ";
		for (auto &g : sema_.globals)
			if (locks.count(g.get())) {
				os_ << sep << "&g_" << g->name << "_lock";
				sep = ", ";
			}
		os_ << " };\n";
	}
}

void Emitter::hdesc(const Symbol &g)
{
	os_ << "static const struct stp_hdesc stp_hd_" << g.name << " = { .kind = ";
	switch (g.hist) {
	case HistKind::Log: os_ << "STP_HIST_LOG"; break;
	case HistKind::Linear:
		os_ << "STP_HIST_LINEAR, .lo = " << c_int64(g.hist_lo) << ", .hi = "
		    << c_int64(g.hist_hi) << ", .step = " << c_int64(g.hist_step);
		break;
	default: os_ << "STP_HIST_NONE"; break;
	}
	os_ << ", .nb = " << hist_buckets(g) << " };\n";
}

// A scalar statistic: one aggregate per CPU, merged into c->agg on read.
void Emitter::scalar_stat(const Symbol &g)
{
	const std::string &n = g.name;
	uint32_t nb = hist_buckets(g);
	hdesc(g);
	os_ << "struct stp_pcs_" << n << " {\n\tstruct stp_stat s;\n\ts64 h["
	    << std::max<uint32_t>(nb, 1) << "];\n};\n"
	    << "static DEFINE_PER_CPU(struct stp_pcs_" << n << ", g_" << n << ");\n"
	    << "static inline void stp_add_" << n << "(s64 v)\n{\n"
	    << "\tstruct stp_pcs_" << n << " *p = this_cpu_ptr(&g_" << n << ");\n\n"
	    << "\tstp_stat_addh_kept(&p->s, p->h, &stp_hd_" << n << ", v, " << g.minmax << ", "
	    << g.variance << ");\n}\n"
	    << "static __maybe_unused const struct stp_stat *stp_agg_" << n
	    << "(struct stp_context *c)\n{\n\tint cpu;\n\n"
	    << "\tstp_stat_agg_reset(c, " << nb << ");\n"
	    << "\tfor_each_possible_cpu(cpu) {\n"
	    << "\t\tstruct stp_pcs_" << n << " *p = per_cpu_ptr(&g_" << n << ", cpu);\n\n"
	    << "\t\tstp_stat_merge(&c->agg, c->agg_hist, &p->s, p->h, " << nb << ");\n"
	    << "\t}\n\treturn &c->agg;\n}\n"
	    << "static __maybe_unused void stp_reset_" << n << "(void)\n{\n\tint cpu;\n\n"
	    << "\tfor_each_possible_cpu(cpu)\n"
	    << "\t\tmemset(per_cpu_ptr(&g_" << n << ", cpu), 0, sizeof(struct stp_pcs_" << n
	    << "));\n}\n";
}

// A number kept per CPU (sema/storage.cpp): the value is the base (the
// initializer, or what begin/end/error last assigned) plus every CPU's
// adds, in u64 so that the sum wraps as one s64 would. Probes add to this
// CPU's copy with interrupts off (__this_cpu_add: one instruction on x86);
// the setter runs only where no other probe does (begin, end, error). The
// getter and setter wrap the runtime's stp_pcpu_sum/stp_pcpu_store.
void Emitter::percpu_number(const Symbol &g)
{
	const std::string &n = g.name;
	os_ << "/* " << n << ": per-CPU (" << g.storage_why << ") */\n"
	    << "static DEFINE_PER_CPU(u64, g_" << n << ");\n"
	    << "static u64 g_" << n << "_base";
	if (g.init)
		os_ << " = (u64)" << c_int64(g.init->number);
	os_ << ";\n"
	    << "static __maybe_unused s64 stp_pcpu_get_" << n << "(void)\n{\n"
	    << "\treturn stp_pcpu_sum(&g_" << n << ", &g_" << n << "_base);\n}\n"
	    << "static __maybe_unused s64 stp_pcpu_set_" << n << "(s64 v)\n{\n"
	    << "\treturn stp_pcpu_store(&g_" << n << ", &g_" << n << "_base, v);\n}\n";
}

void Emitter::maps_table()
{
	if (!has_maps())
		return;
	os_ << "static struct stp_map *const stp_maps[] = {\n";
	for (auto &g : sema_.globals)
		if (g->array)
			os_ << "\t&g_" << g->name << ",\n";
	os_ << "};\n\n";
}

const char *Emitter::kind_enum(ProbeKind k)
{
	switch (k) {
	case ProbeKind::Begin: return "STP_PROBE_BEGIN";
	case ProbeKind::End: return "STP_PROBE_END";
	case ProbeKind::Kprobe: return "STP_PROBE_KPROBE";
	case ProbeKind::Kretprobe: return "STP_PROBE_KRETPROBE";
	case ProbeKind::Timer: return "STP_PROBE_TIMER";
	case ProbeKind::Error: return "STP_PROBE_ERROR";
	case ProbeKind::Perf: return "STP_PROBE_PERF";
	case ProbeKind::Tracepoint: return "STP_PROBE_TRACEPOINT";
	case ProbeKind::Netfilter: return "STP_PROBE_NETFILTER";
	case ProbeKind::Never: return "STP_PROBE_NEVER";
	case ProbeKind::ProcfsRead: return "STP_PROBE_PROCFS_READ";
	case ProbeKind::ProcfsWrite: return "STP_PROBE_PROCFS_WRITE";
	case ProbeKind::Uprobe: return "STP_PROBE_UPROBE";
	case ProbeKind::Uretprobe: return "STP_PROBE_URETPROBE";
	case ProbeKind::ProcessBegin: return "STP_PROBE_PROCESS_BEGIN";
	case ProbeKind::ProcessEnd: return "STP_PROBE_PROCESS_END";
	}
	return "STP_PROBE_BEGIN";
}

// ".base = ..." of a struct stp_tvar initializer: an argument register,
// the return value, a tracepoint argument, or a DWARF location
// (runtime/stp_tvar.h STP_TVAR_LOC: kind, register, offset)
static std::string tvar_base(const TargetAccess &a)
{
	if (a.base == TargetAccess::Return)
		return ".base = STP_TVAR_RETURN, .arg = " + std::to_string(a.arg);
	if (a.base == TargetAccess::TpArg)
		return ".base = STP_TVAR_TPARG, .arg = " + std::to_string(a.arg);
	if (a.base != TargetAccess::Loc)
		return ".base = STP_TVAR_ARG, .arg = " + std::to_string(a.arg);
	static const char *const kinds[] = {"STP_LOC_REG", "STP_LOC_REGOFF", "STP_LOC_MEM",
					    "STP_LOC_STATIC", "STP_LOC_CONST"};
	const Location &l = a.loc;
	return std::string(".base = STP_TVAR_LOC, .lkind = ") + kinds[l.kind] +
	       ", .reg = " + std::to_string(l.reg) + ", .loff = " + std::to_string(l.off) + "LL";
}

// Whether a body's target variable (sema's key: "$return", "@entry:$n",
// "&$p->f") is $return or a member of it.
static bool is_return_key(const std::string &key)
{
	std::string k = key[0] == '&' ? key.substr(1) : key;
	return k == "$return" || k.rfind("$return->", 0) == 0 || k.rfind("$return[", 0) == 0;
}

// target variables of each probe point (runtime/stp_tvar.h)
void Emitter::tvar_tables()
{
	for (size_t i = 0; i < sema_.instances.size(); i++) {
		const ResolvedPoint &p = sema_.instances[i].point;
		if (p.tvars.empty())
			continue;
		const std::vector<std::string> &keys = sema_.bodies[sema_.instances[i].body].tvars;
		os_ << "static const struct stp_tvar stp_tvars_" << i << "[] = {\n";
		for (size_t k = 0; k < p.tvars.size(); k++) {
			TargetAccess a = p.tvars[k];
			// a uretprobe saves its location variables at entry: $return,
			// which the facts may give as the return register's location,
			// is read at the return
			if (p.kind == ProbeKind::Uretprobe && a.base == TargetAccess::Loc &&
			    k < keys.size() && is_return_key(keys[k]))
				a.base = TargetAccess::Return;
			os_ << "\t{ " << tvar_base(a) << ", .size = " << a.size
			    << ", .is_signed = " << a.is_signed << ", .nderef = " << a.offsets.size()
			    << ", .deref_last = " << a.deref_last << ", .at_entry = " << a.at_entry
			    << tvar_steps(a) << " },\n";
		}
		os_ << "};\n\n";
	}
	// $$parms of DWARF entry probes: registers at entry (user probes:
	// DWARF locations); size 0: unavailable
	for (size_t i = 0; i < sema_.instances.size(); i++) {
		const ResolvedPoint &p = sema_.instances[i].point;
		if (p.parms.empty())
			continue;
		os_ << "static const struct stp_tvar stp_parms_" << i << "[] = {\n";
		for (const auto &[name, a] : p.parms) {
			if (a)
				os_ << "\t{ " << tvar_base(*a) << ", .size = " << a->size
				    << ", .is_signed = " << a->is_signed << (a->user ? ", .user = 1" : "")
				    << " }, /* " << name << " */\n";
			else
				os_ << "\t{ .size = 0 }, /* " << name << " */\n";
		}
		os_ << "};\n\n";
	}
}

// One probe function per tracepoint probe, with a prototype ABI-compatible
// with the tracepoint's (runtime/stp_tracepoint.h): its arguments, as u64,
// become the context's entry values.
void Emitter::tracepoint_functions()
{
	for (size_t i = 0; i < sema_.instances.size(); i++) {
		const ResolvedPoint &p = sema_.instances[i].point;
		if (p.kind != ProbeKind::Tracepoint || !p.func)
			continue;
		TracepointEvent ev;
		ev.func = p.func;
		const auto &params = p.func->params;
		os_ << "/* " << p.name << " */\n"
		    << "static void stp_tp_" << i << "(" << probe_params(ev) << ")\n{\n";
		if (!params.empty()) {
			os_ << "\tconst u64 args[" << params.size() << "] = {";
			for (size_t j = 0; j < params.size(); j++)
				os_ << (j ? ", " : " ")
				    << (params[j].abi == "void *" ? "(unsigned long)a" : "(u64)a") << j;
			os_ << " };\n\n";
		}
		os_ << "\tstp_run_probe_data(__data, NULL, STP_STATE_RUNNING, "
		    << (params.empty() ? "NULL" : "args") << ");\n}\n\n";
	}
}

void Emitter::probe_table()
{
	tvar_tables();
	tracepoint_functions();
	lock_tables();
	os_ << "static struct stp_probe stp_probes[] = {\n";
	for (size_t pidx = 0; pidx < sema_.instances.size(); pidx++) {
		const ProbeInstance &pi = sema_.instances[pidx];
		const ResolvedPoint &p = pi.point;
		os_ << "\t{\n\t\t.kind = " << kind_enum(p.kind) << ",\n";
		if (!p.symbol.empty())
			os_ << "\t\t.symbol = " << c_string(p.symbol) << ",\n";
		if (p.offset)
			os_ << "\t\t.offset = " << p.offset << ",\n";
		if (p.sym_delta) {
			os_ << "\t\t.sym_delta = " << p.sym_delta->delta << "LL,\n\t\t.has_sym_delta = 1,\n";
			if (p.sym_delta->shown_as != p.symbol)
				os_ << "\t\t.sym_shown = " << c_string(p.sym_delta->shown_as) << ",\n";
		}
		if (!p.tvars.empty())
			os_ << "\t\t.tvars = stp_tvars_" << pidx << ",\n\t\t.ntvars = "
			    << p.tvars.size() << ",\n";
		if (p.kind == ProbeKind::Tracepoint && p.func) {
			std::string names;
			for (const KernelParam &a : p.func->params)
				names += a.name + '\0';
			os_ << "\t\t.tp_name = " << c_string(p.tracepoint) << ",\n"
			    << "\t\t.tp_func = (void *)stp_tp_" << pidx << ",\n"
			    << "\t\t.tp_nargs = " << p.func->params.size() << ",\n"
			    << "\t\t.tp_argnames = " << c_string(names) << ",\n";
		}
		if (p.kind == ProbeKind::Netfilter) // the hook's skb and state (stp_netfilter.h)
			os_ << "\t\t.nf_hook = " << p.nf_hook << ",\n\t\t.nf_pf = " << p.nf_pf
			    << ",\n\t\t.nf_priority = " << p.nf_priority << ",\n\t\t.tp_nargs = 2,\n";
		if (!p.parms.empty()) {
			std::string names;
			for (const auto &prm : p.parms)
				names += prm.first + '\0';
			os_ << "\t\t.parms = stp_parms_" << pidx << ",\n\t\t.nparms = " << p.parms.size()
			    << ",\n\t\t.parm_names = " << c_string(names) << ",\n";
		}
		// user-space addresses print as they are (only kernel ones are hashed)
		bool user = p.kind == ProbeKind::Uprobe || p.kind == ProbeKind::Uretprobe;
		if (p.func && !user && (p.kind == ProbeKind::Tracepoint || !p.parms.empty())) {
			// a tracepoint's pointer arguments; the pointers sema found
			// among the names $$parms, $$vars or $$locals print
			uint64_t mask = p.kind == ProbeKind::Tracepoint ? 0 : p.parm_ptrmask;
			for (size_t j = 0; j < p.func->params.size() && j < 64; j++)
				if (p.kind == ProbeKind::Tracepoint &&
				    p.func->params[j].type.find('*') != std::string::npos)
					mask |= uint64_t{1} << j;
			if (mask)
				os_ << "\t\t.parm_ptrmask = 0x" << std::hex << mask << std::dec
				    << "ULL,\n";
		}
		const KernelFunction *fn = p.func ? p.func.get() : p.ufunc ? &p.ufunc->fn : nullptr;
		if ((p.kind == ProbeKind::Kretprobe || p.kind == ProbeKind::Uretprobe) && fn &&
		    fn->ret_type != "void")
			os_ << "\t\t.ret_shown = "
			    << (!user && fn->ret_type.find('*') != std::string::npos ? 2 : 1) << ",\n";
		// timer.jiffies: the tick is the target kernel's, known to the build
		const char *unit = p.in_jiffies ? "ULL * TICK_NSEC" : "ULL";
		if (p.period_ns)
			os_ << "\t\t.period_ns = " << p.period_ns << unit << ",\n";
		if (p.randomize_ns)
			os_ << "\t\t.randomize_ns = " << p.randomize_ns << unit << ",\n";
		if (p.maxactive)
			os_ << "\t\t.maxactive = " << p.maxactive << ",\n";
		user_point(p, pi.body);
		if (p.kind == ProbeKind::Perf) {
			os_ << "\t\t.event = " << p.event_index << ",\n";
			if (p.sample_freq)
				os_ << "\t\t.sample_freq = " << p.sample_freq << "ULL,\n";
			else if (p.tick_period)
				os_ << "\t\t.sample_period = TICK_NSEC,\n";
			else
				os_ << "\t\t.sample_period = " << p.sample_period << "ULL,\n";
		}
		os_ << "\t\t.name = " << c_string(p.name) << ",\n"
		    << "\t\t.loc = " << c_string(p.loc.str()) << ",\n"
		    << "\t\t.body = stp_probe_" << pi.body << ",\n";
		if (size_t n = sema_.bodies[pi.body].locks.size())
			os_ << "\t\t.locks = stp_locks_" << pi.body << ",\n\t\t.nlocks = " << n << ",\n";
		if (sema_.bodies[pi.body].uses_percpu)
			os_ << "\t\t.percpu = 1,\n";
		if (pi.optional)
			os_ << "\t\t.optional = 1,\n";
		os_ << "\t},\n";
	}
	os_ << "};\n\n";
	entry_dispatch();
	procfs_table();
}

// The probes that can become ftrace entry sites (runtime/stp_ftrace.h: a
// KPROBE at offset 0), indices into stp_probes[], when the dispatch
// inlines their bodies: at most kEntryDispatchMax of them, else none
std::vector<size_t> Emitter::dispatched_entry_probes() const
{
	std::vector<size_t> out;
	for (size_t i = 0; i < sema_.instances.size(); i++)
		if (sema_.instances[i].point.kind == ProbeKind::Kprobe && !sema_.instances[i].point.offset)
			out.push_back(i);
	if (out.size() > kEntryDispatchMax)
		out.clear();
	return out;
}

// stp_entry_dispatch() (and stp_entry_one() for one entry probe): each
// entry probe's run naming its body, which the ftrace handlers then inline
// instead of calling p->body (runtime/stp_ftrace.h, STP_ENTRY_DISPATCH);
// each copy costs the build about 20 ms and the module about 250 bytes
void Emitter::entry_dispatch()
{
	std::vector<size_t> entries = dispatched_entry_probes();
	if (entries.empty())
		return;
	auto run = [&](size_t i) {
		return "stp_run_probe_body(&stp_probes[" + std::to_string(i) + "], stp_probe_" +
		       std::to_string(sema_.instances[i].body) +
		       ", NULL, STP_STATE_RUNNING, NULL, NULL, 0);\n";
	};
	os_ << "/* the entry probes' runs with their bodies, for the ftrace handlers */\n"
	    << "static __always_inline void stp_entry_dispatch(const struct stp_probe *p)\n{\n"
	    << "\tswitch (p - stp_probes) {\n";
	for (size_t i : entries)
		os_ << "\tcase " << i << ":\n\t\t" << run(i) << "\t\tbreak;\n";
	os_ << "\tdefault:\n\t\tstp_entry_run_other(p);\n\t}\n}\n\n";
	if (entries.size() == 1)
		os_ << "static __always_inline void stp_entry_one(void)\n{\n\t" << run(entries[0])
		    << "}\n\n";
}

// The file, offsets and SDT semaphore of a process probe point
// (runtime/stp_uprobes.h); nothing for other kinds.
void Emitter::user_point(const ResolvedPoint &p, size_t body)
{
	bool uprobe = p.kind == ProbeKind::Uprobe || p.kind == ProbeKind::Uretprobe;
	bool process = p.kind == ProbeKind::ProcessBegin || p.kind == ProbeKind::ProcessEnd;
	if ((p.kind == ProbeKind::Uretprobe || p.kind == ProbeKind::Kretprobe) &&
	    !sema_.bodies[body].entry_exprs.empty())
		os_ << "\t\t.entry_fn = stp_entry_" << body << ",\n\t\t.nentry = "
		    << sema_.bodies[body].entry_exprs.size() << ",\n";
	if (!uprobe && !process)
		return;
	if (!p.path.empty())
		os_ << "\t\t.path = " << c_string(p.path) << ",\n";
	if (!uprobe)
		return;
	os_ << "\t\t.uoffset = 0x" << std::hex << p.uoffset << "ULL,\n\t\t.uvaddr = 0x" << p.uvaddr
	    << "ULL,\n";
	if (p.semaphore)
		os_ << "\t\t.semaphore = 0x" << p.semaphore << "ULL,\n";
	os_ << std::dec;
}

// The /proc/<module>/ files of procfs probes (runtime/stp_procfs.h): each
// with its read and write probe.
void Emitter::procfs_table()
{
	std::vector<const ResolvedPoint *> points;
	for (const ProbeInstance &pi : sema_.instances)
		points.push_back(&pi.point);
	std::vector<ProcfsFile> files = procfs_files(points, nullptr);
	if (files.empty())
		return;
	auto probe = [](size_t i) {
		return i == SIZE_MAX ? std::string("NULL") : "&stp_probes[" + std::to_string(i) + "]";
	};
	os_ << "static struct stp_procfs_file stp_procfs_files[] = {\n";
	for (const ProcfsFile &f : files) {
		char mode[8];
		std::snprintf(mode, sizeof mode, "0%03o", f.mode);
		os_ << "\t{ .name = " << c_string(f.name) << ", .read = " << probe(f.read)
		    << ", .write = " << probe(f.write) << ", .mode = " << mode
		    << ", .bufsize = " << f.bufsize << " },\n";
	}
	os_ << "};\n\n";
}

} // namespace stap_pmu::codegen_impl
