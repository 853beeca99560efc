// process.cpp - user-space probe points (uprobes on the file offset of an
// instruction of an ELF file): process("PATH") followed by
// .function("pattern")[.call|.return], .statement("func@file:line"),
// [.provider("p")].mark("name"), .plt("name")[.return] or .begin/.end, and
// process.begin/.end of any process. process("PATH").library("/lib/L")
// probes the library. Paths, functions and SDT markers come from the
// ProcessFacts of the context (process_facts.h).
#include <glob.h>
#include <sys/stat.h>

#include <set>

#include "translator/probes/probe_kind.h"

namespace stap_pmu {

namespace {

// The parts of a process probe point every form needs.
struct Target {
	const ProbePoint &pp;
	const ProbeContext &ctx;
	std::string path;   // the ELF file probed (absolute)
	std::string prefix; // process("/abs/path")
	size_t at = 1;      // index of the component after process(...)[.library(...)]
};

} // namespace

static const char *const process_forms =
	"process(\"PATH\") may be followed by .function(\"f\"), .statement(\"f@file:line\"), "
	".mark(\"name\"), .provider(\"p\").mark(\"name\"), .plt(\"name\"), .library(\"/path\"), "
	".begin or .end";

static bool string_arg(const ProbeComponent &c, Diagnostics &diags, const std::string &example)
{
	if (c.has_arg && c.arg_is_string && !c.str_arg.empty())
		return true;
	diags.error(c.has_arg ? c.arg_loc : c.loc,
		    "'" + c.name + "' needs a name in quotes, e.g. " + example);
	return false;
}

static bool nothing_after(const Target &t, size_t i)
{
	const auto &cs = t.pp.components;
	if (cs.size() <= i)
		return true;
	t.ctx.diags.error(cs[i].loc, "unexpected '." + cs[i].name + "' in '" +
					     probe_point_str(t.pp) + "'");
	return false;
}

static ResolvedPoint point(const Target &t, ProbeKind kind, std::string name)
{
	ResolvedPoint r;
	r.kind = kind;
	r.name = std::move(name);
	r.path = t.path;
	r.loc = t.pp.loc;
	return r;
}

// A uprobe on f: a DWARF function keeps its prototype in func (for $$parms
// and -L) next to ufunc.
static ResolvedPoint function_point(const Target &t, UserFunction uf, bool ret,
				    const std::string &form, const std::string &spec)
{
	ResolvedPoint r = point(t, ret ? ProbeKind::Uretprobe : ProbeKind::Uprobe,
				t.prefix + "." + form + "(\"" + spec + "\")");
	r.path = uf.path;
	r.uoffset = uf.offset;
	r.uvaddr = uf.vaddr;
	r.symbol = uf.fn.name;
	r.offset = uf.fn.offset;
	auto shared = std::make_shared<const UserFunction>(std::move(uf));
	if (shared->has_dwarf)
		r.func = std::shared_ptr<const KernelFunction>(shared, &shared->fn);
	r.ufunc = std::move(shared);
	return r;
}

// "name@file:line" as pp() prints a function with DWARF; the bare name
// of an ELF symbol.
static std::string function_spec(const UserFunction &uf)
{
	if (!uf.has_dwarf || uf.fn.file.empty())
		return uf.fn.name;
	return uf.fn.name + "@" + uf.fn.file + ":" + std::to_string(uf.fn.line);
}

// .function("pattern")[.call|.return]
static std::optional<std::vector<ResolvedPoint>> functions(const Target &t)
{
	Diagnostics &diags = t.ctx.diags;
	const auto &cs = t.pp.components;
	const ProbeComponent &f = cs[t.at];
	if (!string_arg(f, diags, "function(\"main\")"))
		return std::nullopt;
	bool ret = false, call = false;
	if (cs.size() > t.at + 1) {
		const ProbeComponent &suf = cs[t.at + 1];
		if (suf.name == "inline" && !suf.has_arg) {
			diags.error(suf.loc, "'.inline' probes of user functions are not supported: "
					     "an inlined copy has no entry to put a uprobe on",
				    "probe the functions it is inlined into, or use .call for its "
				    "out-of-line copy");
			return std::nullopt;
		}
		if (suf.name == "return" && cs.size() > t.at + 2 && cs[t.at + 2].name == "maxactive") {
			diags.error(cs[t.at + 2].loc, "'.maxactive' is for kernel .return probes",
				    "uretprobes have no limit of instances in flight: drop it");
			return std::nullopt;
		}
		if ((suf.name != "return" && suf.name != "call") || suf.has_arg) {
			diags.error(suf.loc, "unexpected '." + suf.name + "' in '" + probe_point_str(t.pp) + "'",
				    "process(\"PATH\").function(\"f\") may be followed by .call or .return");
			return std::nullopt;
		}
		ret = suf.name == "return";
		call = suf.name == "call";
		if (!nothing_after(t, t.at + 2))
			return std::nullopt;
	}
	auto fns = t.ctx.process->functions(t.path, f.str_arg, ret || call);
	if (!fns) {
		diags.error(f.arg_loc, fns.error().what, fns.error().hint);
		return std::nullopt;
	}
	std::vector<ResolvedPoint> out;
	for (UserFunction &uf : *fns) {
		if (ret && uf.fn.offset) {
			diags.error(f.arg_loc, "a line probe ('" + f.str_arg + "') cannot be .return",
				    "use process(\"PATH\").statement(\"func@file:line\")");
			return std::nullopt;
		}
		std::string spec = function_spec(uf);
		out.push_back(function_point(t, std::move(uf), ret, "function", spec));
		if (ret || call)
			out.back().name += ret ? ".return" : ".call";
	}
	return out;
}

// .statement("func@file:line")
static std::optional<std::vector<ResolvedPoint>> statements(const Target &t)
{
	Diagnostics &diags = t.ctx.diags;
	const ProbeComponent &s = t.pp.components[t.at];
	if (!string_arg(s, diags, "statement(\"main@prog.c:12\")") || !nothing_after(t, t.at + 1))
		return std::nullopt;
	auto pat = parse_function_pattern(s.str_arg);
	if (pat && pat->line == 0 && !pat->many_lines()) {
		diags.error(s.arg_loc, "statement(\"" + s.str_arg + "\") needs a line",
			    "e.g. statement(\"" + pat->glob + "@" +
				    (pat->file_glob.empty() ? std::string("*.c") : pat->file_glob) +
				    ":12\"); for a function's entry use .function");
		return std::nullopt;
	}
	auto fns = t.ctx.process->functions(t.path, s.str_arg, false);
	if (!fns) {
		diags.error(s.arg_loc, fns.error().what, fns.error().hint);
		return std::nullopt;
	}
	std::vector<ResolvedPoint> out;
	for (UserFunction &uf : *fns) {
		std::string spec = uf.fn.name + "@" + uf.fn.file + ":" + std::to_string(uf.fn.line);
		out.push_back(function_point(t, std::move(uf), false, "statement", spec));
	}
	return out;
}

// [.provider("p")].mark("name")
static std::optional<std::vector<ResolvedPoint>> marks(const Target &t)
{
	Diagnostics &diags = t.ctx.diags;
	const auto &cs = t.pp.components;
	size_t mi = t.at;
	std::string provider;
	if (cs[mi].name == "provider") {
		if (!string_arg(cs[mi], diags, "provider(\"myapp\").mark(\"start\")"))
			return std::nullopt;
		provider = cs[mi].str_arg;
		if (cs.size() <= mi + 1 || cs[mi + 1].name != "mark") {
			diags.error(cs.size() <= mi + 1 ? cs[mi].loc : cs[mi + 1].loc,
				    "expected .mark(\"name\") after .provider(\"" + provider + "\")");
			return std::nullopt;
		}
		mi++;
	}
	const ProbeComponent &m = cs[mi];
	if (!string_arg(m, diags, "mark(\"start\")") || !nothing_after(t, mi + 1))
		return std::nullopt;
	auto found = t.ctx.process->marks(t.path, provider, m.str_arg);
	if (!found) {
		diags.error(m.arg_loc, found.error().what, found.error().hint);
		return std::nullopt;
	}
	if (found->empty()) {
		diags.error(m.arg_loc, "no SDT marker" +
					       (provider.empty() ? "" : " of provider '" + provider + "'") +
					       " matches '" + m.str_arg + "' in " + t.path,
			    "stap-pmu -l '" + t.prefix + ".mark(\"*\")' lists its markers");
		return std::nullopt;
	}
	std::vector<ResolvedPoint> out;
	for (SdtMark &sm : *found) {
		ResolvedPoint r = point(t, ProbeKind::Uprobe, t.prefix + ".provider(\"" + sm.provider +
								      "\").mark(\"" + sm.name + "\")");
		r.path = sm.path.empty() ? t.path : sm.path;
		r.uoffset = sm.offset;
		r.uvaddr = sm.vaddr;
		r.semaphore = sm.semaphore_offset;
		r.symbol = sm.name;
		r.mark = std::make_shared<const SdtMark>(std::move(sm));
		out.push_back(std::move(r));
	}
	return out;
}

// .plt("name")[.return]
static std::optional<std::vector<ResolvedPoint>> plts(const Target &t)
{
	Diagnostics &diags = t.ctx.diags;
	const auto &cs = t.pp.components;
	ProbeComponent p = cs[t.at];
	if (!p.has_arg) { // .plt: every entry, as .plt("*")
		p.has_arg = p.arg_is_string = true;
		p.str_arg = "*";
		p.arg_loc = p.loc;
	}
	if (!string_arg(p, diags, "plt(\"malloc\")"))
		return std::nullopt;
	bool ret = cs.size() > t.at + 1 && cs[t.at + 1].name == "return" && !cs[t.at + 1].has_arg;
	if (!nothing_after(t, t.at + (ret ? 2 : 1)))
		return std::nullopt;
	auto fns = t.ctx.process->plt(t.path, p.str_arg);
	if (!fns) {
		diags.error(p.arg_loc, fns.error().what, fns.error().hint);
		return std::nullopt;
	}
	std::vector<ResolvedPoint> out;
	for (UserFunction &uf : *fns) {
		std::string spec = uf.fn.name;
		out.push_back(function_point(t, std::move(uf), ret, "plt", spec));
		if (ret)
			out.back().name += ".return";
	}
	return out;
}

// process.begin / process.end: every process.
static std::optional<std::vector<ResolvedPoint>> resolve(const ProbePoint &pp,
							 const ProbeContext &ctx);

// pp with process(PATH) naming path (a copy: its condition stays with pp)
static ProbePoint with_path(const ProbePoint &pp, const std::string &path)
{
	ProbePoint one;
	one.loc = pp.loc;
	one.components = pp.components;
	one.optional = pp.optional;
	ProbeComponent &c = one.components[0];
	if (!c.has_arg)
		c.arg_loc = c.loc;
	c.has_arg = c.arg_is_string = true;
	c.str_arg = path;
	return one;
}

// process.function("f") and the other forms without a PATH: the -c
// command's program, as SystemTap's target process
static std::optional<std::vector<ResolvedPoint>> target_process(const ProbePoint &pp,
								const ProbeContext &ctx)
{
	std::string prog = ctx.process ? ctx.process->target_program() : "";
	if (prog.empty()) {
		ctx.diags.error(pp.components[1].loc,
				"'" + probe_point_str(pp) + "' without a program path needs the "
				"target program of -c CMD",
				"run it with -c, or name the program: process(\"PATH\")." +
					pp.components[1].name + "(...)");
		return std::nullopt;
	}
	return resolve(with_path(pp, prog), ctx);
}

static std::optional<std::vector<ResolvedPoint>> any_process(const ProbePoint &pp,
							     const ProbeContext &ctx)
{
	const auto &cs = pp.components;
	if (cs.size() > 1 && (cs[1].name == "function" || cs[1].name == "statement" ||
			      cs[1].name == "mark" || cs[1].name == "provider" || cs[1].name == "plt"))
		return target_process(pp, ctx);
	if (cs.size() != 2 || cs[1].has_arg || (cs[1].name != "begin" && cs[1].name != "end")) {
		const ProbeComponent &bad = cs.size() > 2 ? cs[2] : cs.size() > 1 ? cs[1] : cs[0];
		ctx.diags.error(bad.loc, "expected process(\"PATH\").PROBE, process.begin or "
					 "process.end in '" + probe_point_str(pp) + "'",
				process_forms);
		return std::nullopt;
	}
	ResolvedPoint r;
	r.kind = cs[1].name == "begin" ? ProbeKind::ProcessBegin : ProbeKind::ProcessEnd;
	r.name = "process." + cs[1].name;
	r.loc = pp.loc;
	return std::vector<ResolvedPoint>{std::move(r)};
}

// process("PATH")[.library("/path")]: the file probed, or the error.
static bool target_file(Target &t)
{
	Diagnostics &diags = t.ctx.diags;
	const auto &cs = t.pp.components;
	auto path = t.ctx.process->resolve_path(cs[0].str_arg);
	if (!path) {
		diags.error(cs[0].arg_loc, path.error().what, path.error().hint);
		return false;
	}
	t.path = *path;
	if (cs.size() > 1 && cs[1].name == "library") {
		if (!string_arg(cs[1], diags, "library(\"/lib/x86_64-linux-gnu/libc.so.6\")"))
			return false;
		if (cs[1].str_arg.find('/') == std::string::npos) {
			diags.error(cs[1].arg_loc, "library(\"" + cs[1].str_arg +
							   "\") needs the library's path",
				    "e.g. library(\"/lib/x86_64-linux-gnu/libc.so.6\"), or probe it "
				    "directly: process(\"/path/to/lib.so\").function(\"f\")");
			return false;
		}
		auto lib = t.ctx.process->resolve_path(cs[1].str_arg);
		if (!lib) {
			diags.error(cs[1].arg_loc, lib.error().what, lib.error().hint);
			return false;
		}
		t.path = *lib;
		t.at = 2;
	}
	t.prefix = "process(\"" + t.path + "\")";
	return true;
}


// process("/lib*/libc.so.6"): the point for each regular file the glob
// matches on this machine (each file once, however many links name it).
static std::optional<std::vector<ResolvedPoint>> resolve_glob(const ProbePoint &pp,
							      const ProbeContext &ctx)
{
	const ProbeComponent &c = pp.components[0];
	glob_t g{};
	int rc = glob(c.str_arg.c_str(), 0, nullptr, &g);
	std::vector<std::string> paths;
	std::set<std::pair<dev_t, ino_t>> seen;
	for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++) {
		struct stat st;
		if (stat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    seen.insert({st.st_dev, st.st_ino}).second)
			paths.push_back(g.gl_pathv[i]);
	}
	globfree(&g);
	if (paths.empty()) {
		ctx.diags.error(c.arg_loc, "no file matches '" + c.str_arg + "'",
				"the pattern is matched against this machine's files");
		return std::nullopt;
	}
	// the files that are not programs of the target (/lib32/libc.so.6 of
	// /lib*/libc.so.6 on x86-64) are no match; when none is, the first's error
	std::vector<std::string> usable;
	std::optional<Error> first;
	for (const std::string &path : paths) {
		Result<std::string> r = ctx.process->resolve_path(path);
		if (r)
			usable.push_back(path);
		else if (!first)
			first = r.error();
	}
	if (usable.empty()) {
		ctx.diags.error(c.arg_loc, first->what, first->hint);
		return std::nullopt;
	}
	paths = usable;
	std::vector<ResolvedPoint> out;
	for (const std::string &path : paths) {
		auto r = resolve(with_path(pp, path), ctx);
		if (!r)
			return std::nullopt;
		std::move(r->begin(), r->end(), std::back_inserter(out));
	}
	return out;
}

static std::optional<std::vector<ResolvedPoint>> resolve(const ProbePoint &pp,
							 const ProbeContext &ctx)
{
	Diagnostics &diags = ctx.diags;
	const auto &cs = pp.components;
	if (!cs[0].has_arg)
		return any_process(pp, ctx);
	if (cs[0].arg_is_string && ctx.process && cs[0].str_arg.find('/') != std::string::npos &&
	    cs[0].str_arg.find_first_of("*?[") != std::string::npos)
		return resolve_glob(pp, ctx);
	if (!cs[0].arg_is_string) {
		diags.error(cs[0].arg_loc, "process(PID) is not supported",
			    "name the program, process(\"PATH\"), and limit the probes to one "
			    "process tree with -x PID");
		return std::nullopt;
	}
	if (!ctx.process) {
		diags.error(cs[0].loc, "process probes need the ELF and DWARF information of "
				       "user-space programs, which is not available here");
		return std::nullopt;
	}
	Target t{pp, ctx, "", "", 1};
	if (!target_file(t))
		return std::nullopt;
	if (cs.size() <= t.at) {
		diags.error(cs[t.at - 1].loc, "expected a probe after '" + probe_point_str(pp) + "'",
			    process_forms);
		return std::nullopt;
	}
	const std::string &what = cs[t.at].name;
	if (what == "begin" || what == "end") {
		if (!nothing_after(t, t.at + 1))
			return std::nullopt;
		ProbeKind k = what == "begin" ? ProbeKind::ProcessBegin : ProbeKind::ProcessEnd;
		return std::vector<ResolvedPoint>{point(t, k, t.prefix + "." + what)};
	}
	if (what == "function")
		return functions(t);
	if (what == "statement")
		return statements(t);
	if (what == "mark" || what == "provider")
		return marks(t);
	if (what == "plt")
		return plts(t);
	diags.error(cs[t.at].loc, "unexpected '." + what + "' in '" + probe_point_str(pp) + "'",
		    process_forms);
	return std::nullopt;
}

const ProbeProvider process_provider = {
	"process",
	"process(\"PATH\").function(\"f\")[.call|.return]/.statement/.mark/.plt/.begin/.end, "
	"process.begin/.end",
	nullptr, resolve};

} // namespace stap_pmu
