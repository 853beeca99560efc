// tracequery.cpp - tracepoint prototypes from a query module's DWARF.
#include "translator/kernelinfo/tracequery.h"

#include "translator/support/suggest.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;

namespace stap_pmu::tracequery {

std::string query_source(const std::string &sys)
{
	// Every tracepoint declared by the header becomes an empty function with
	// the tracepoint's prototype; only its DWARF is used. TRACE_EVENT,
	// DEFINE_EVENT, TRACE_EVENT_FN, ... expand to DECLARE_TRACE or
	// DECLARE_TRACE_CONDITION when they are used, so those two suffice up
	// to 6.15; 6.16 adds DECLARE_TRACE_EVENT (the old DECLARE_TRACE) and
	// names DECLARE_TRACE's bare tracepoints NAME_tp.
	// Common headers come first, so that the structs most tracepoint
	// arguments point to are complete (a header that only names a struct in
	// a prototype gives $arg->member nothing to resolve).
	return "/* stap-pmu tracepoint query for <trace/events/" + sys + ".h> */\n"
	       "#include <linux/module.h>\n"
	       "#include <linux/sched.h>\n"
	       "#include <linux/interrupt.h>\n"
	       "#include <linux/fs.h>\n"
	       "#include <linux/mm.h>\n"
	       "#include <linux/tracepoint.h>\n"
	       "\n"
	       "/* kernels built with -Wmissing-prototypes (6.12): the functions are\n"
	       " * only read back from DWARF; a prototype of their own would give a\n"
	       " * struct first named in a parameter list two different scopes */\n"
	       "#pragma GCC diagnostic ignored \"-Wmissing-prototypes\"\n"
	       "#define STP_TQ_FN(name, proto) noinline void stp_tq_##name(proto) { }\n"
	       "#ifdef DECLARE_TRACE_EVENT\n"
	       "#define STP_TQ_BARE(name, proto) STP_TQ_FN(name##_tp, PARAMS(proto))\n"
	       "#else\n"
	       "#define STP_TQ_BARE(name, proto) STP_TQ_FN(name, PARAMS(proto))\n"
	       "#endif\n"
	       "#undef DECLARE_TRACE\n"
	       "#define DECLARE_TRACE(name, proto, args) STP_TQ_BARE(name, PARAMS(proto))\n"
	       "#undef DECLARE_TRACE_CONDITION\n"
	       "#define DECLARE_TRACE_CONDITION(name, proto, args, cond) \\\n"
	       "\tSTP_TQ_BARE(name, PARAMS(proto))\n"
	       "#undef DECLARE_TRACE_EVENT\n"
	       "#define DECLARE_TRACE_EVENT(name, proto, args) STP_TQ_FN(name, PARAMS(proto))\n"
	       "#undef DECLARE_TRACE_EVENT_CONDITION\n"
	       "#define DECLARE_TRACE_EVENT_CONDITION(name, proto, args, cond) \\\n"
	       "\tSTP_TQ_FN(name, PARAMS(proto))\n"
	       "#undef DECLARE_TRACE_SYSCALL\n"
	       "#define DECLARE_TRACE_SYSCALL(name, proto, args) STP_TQ_FN(name, PARAMS(proto))\n"
	       "\n"
	       "#include <trace/events/" + sys + ".h>\n"
	       "\n"
	       "MODULE_LICENSE(\"GPL\");\n";
}

std::vector<std::string> include_dirs(const std::string &tree)
{
	std::vector<std::string> dirs = {tree + "/include"};
	// Debian's linux-headers-<abi>-<flavour>/Makefile is one line,
	// "include /usr/src/linux-headers-<abi>-common/Makefile"
	std::ifstream mk(tree + "/Makefile");
	std::string line;
	for (int n = 0; n < 5 && std::getline(mk, line); n++) {
		const std::string kw = "include ";
		const std::string tail = "/Makefile";
		if (line.rfind(kw, 0) == 0 && line.size() > kw.size() + tail.size() &&
		    line.compare(line.size() - tail.size(), tail.size(), tail) == 0) {
			std::string dir = line.substr(kw.size(), line.size() - kw.size() - tail.size());
			if (!dir.empty() && dir[0] != '/')
				dir = tree + "/" + dir;
			dirs.push_back(dir + "/include");
		}
	}
	std::error_code ec;
	if (fs::is_directory(tree + "/source/include", ec))
		dirs.push_back(tree + "/source/include");
	return dirs;
}

namespace {

// The first `#define TRACE_SYSTEM NAME` of a header's text, or "".
std::string trace_system_of(const std::string &text)
{
	const std::string def = "#define TRACE_SYSTEM";
	for (size_t at = text.find(def); at != std::string::npos; at = text.find(def, at + 1)) {
		size_t i = at + def.size();
		if (i >= text.size() || (text[i] != ' ' && text[i] != '\t'))
			continue; // TRACE_SYSTEM_VAR, TRACE_SYSTEM_STRING
		while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
			i++;
		size_t b = i;
		while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
			i++;
		return text.substr(b, i - b);
	}
	return "";
}

std::string read_text(const std::string &path)
{
	std::ifstream in(path);
	return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

} // namespace

std::vector<SystemHeader> system_headers(const std::string &tree)
{
	std::map<std::string, SystemHeader> by_stem; // the first include dir wins
	for (const std::string &d : include_dirs(tree)) {
		std::error_code ec;
		for (fs::directory_iterator it(d + "/trace/events", ec), end; !ec && it != end;
		     it.increment(ec)) {
			std::string f = it->path().filename().string();
			if (f.size() <= 2 || f.compare(f.size() - 2, 2, ".h") != 0)
				continue;
			std::string stem = f.substr(0, f.size() - 2);
			if (by_stem.count(stem))
				continue;
			std::string text = read_text(it->path().string());
			std::string sys = trace_system_of(text);
			by_stem.emplace(stem, SystemHeader{sys.empty() ? stem : sys, stem, it->path().string()});
		}
	}
	std::vector<SystemHeader> out;
	for (auto &[stem, h] : by_stem)
		out.push_back(std::move(h));
	return out;
}

std::vector<std::string> subsystems(const std::string &tree)
{
	std::vector<std::string> out;
	for (const SystemHeader &h : system_headers(tree))
		out.push_back(h.system);
	std::sort(out.begin(), out.end());
	out.erase(std::unique(out.begin(), out.end()), out.end());
	return out;
}

std::vector<std::string> headers_of(const std::vector<SystemHeader> &all, const std::string &sys)
{
	std::vector<std::string> out;
	for (const SystemHeader &h : all)
		if (h.system == sys)
			out.push_back(h.stem);
	if (out.empty()) // a header named differently from its system (syscalls.h)
		for (const SystemHeader &h : all)
			if (h.stem == sys)
				out.push_back(h.stem);
	return out;
}

std::vector<std::string> declared_events(const std::string &text)
{
	std::vector<std::string> out;
	auto ident = [&](size_t &i) {
		while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
			i++;
		size_t b = i;
		while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
			i++;
		return text.substr(b, i - b);
	};
	for (size_t i = 0; i < text.size(); i++) {
		if (text[i] != 'T' && text[i] != 'D')
			continue;
		if (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_'))
			continue;
		size_t j = i;
		std::string macro = ident(j);
		bool second = macro.rfind("DEFINE_EVENT", 0) == 0;
		if (!second && macro.rfind("TRACE_EVENT", 0) != 0 && macro.rfind("DECLARE_TRACE", 0) != 0)
			continue;
		while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j])))
			j++;
		if (j >= text.size() || text[j] != '(')
			continue;
		j++;
		std::string name = ident(j);
		if (second) {
			while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j])))
				j++;
			if (j >= text.size() || text[j] != ',')
				continue;
			j++;
			name = ident(j);
		}
		if (!name.empty())
			out.push_back(name);
		i = j;
	}
	return out;
}

struct Tracepoints::Memo {
	bool have_target = false;
	Result<Target> target = fail("no target kernel configured");
	std::map<std::string, TracepointLookup> subsystems;
	std::vector<std::unique_ptr<TracepointSubsystem>> owned;
};

namespace {

// The events of a query module's prototypes.
std::unique_ptr<TracepointSubsystem> events_of(const std::string &sys, const std::string &header,
					       std::vector<KernelFunction> &fns)
{
	auto s = std::make_unique<TracepointSubsystem>();
	s->name = sys;
	s->header = header;
	for (KernelFunction &f : fns) {
		TracepointEvent ev;
		ev.name = f.name;
		for (const KernelParam &p : f.params)
			if (p.abi.empty() && ev.unsupported.empty())
				ev.unsupported = "argument '" + p.name + "' of type " + p.type +
						 " is not an integer or pointer (passed by value)";
		ev.func = std::make_shared<const KernelFunction>(std::move(f));
		s->events.push_back(std::move(ev));
	}
	return s;
}

// The error for a subsystem without a header in t's tree.
TracepointError unknown_subsystem(const Target &t, const std::string &sys, const std::string &header,
				  std::string events_dir)
{
	if (events_dir.empty())
		events_dir = t.tree + "/include";
	std::string near = closest_name(sys, subsystems(t.tree));
	return TracepointError{
		fail("no tracepoint subsystem '" + sys + "': " + header + " not found in " + events_dir,
		     near.empty() ? "subsystems are the headers in " + events_dir + "/trace/events"
				  : "did you mean '" + near + "'?"),
		true};
}

} // namespace

Tracepoints::Tracepoints(const QueryModuleBuilder *builder, const dwarf::Reader &reader)
	: builder_(builder), reader_(reader), memo_(std::make_unique<Memo>())
{
}

Tracepoints::~Tracepoints() = default;

TracepointLookup Tracepoints::subsystem(const std::string &sys) const
{
	auto it = memo_->subsystems.find(sys);
	if (it != memo_->subsystems.end())
		return it->second;
	return memo_->subsystems.emplace(sys, query(sys)).first->second;
}

const Result<Target> &Tracepoints::target() const
{
	Memo &m = *memo_;
	if (!m.have_target) {
		m.have_target = true;
		if (builder_)
			m.target = builder_->target();
	}
	return m.target;
}

std::vector<std::string> Tracepoints::declaring(const std::string &event_glob) const
{
	std::vector<std::string> out;
	const Result<Target> &t = target();
	if (!t)
		return out;
	for (const SystemHeader &h : system_headers(t->tree)) {
		if (!out.empty() && out.back() == h.system)
			continue;
		for (const std::string &ev : declared_events(read_text(h.path)))
			if (fnmatch(event_glob.c_str(), ev.c_str(), 0) == 0) {
				out.push_back(h.system);
				break;
			}
	}
	std::sort(out.begin(), out.end());
	out.erase(std::unique(out.begin(), out.end()), out.end());
	return out;
}

TracepointLookup Tracepoints::query(const std::string &sys) const
{
	Memo &m = *memo_;
	if (!target())
		return TracepointError{
			fail("kernel.trace needs the target kernel's build tree: " + m.target.error().what)};
	const Target &t = *m.target;
	// a system's events may span headers (power: power.h and
	// power_cpu_migrate.h); its name may differ from the header's
	// (raw_syscalls: syscalls.h)
	std::vector<std::string> stems = headers_of(system_headers(t.tree), sys);
	if (stems.empty()) {
		std::string events_dir;
		for (const std::string &d : include_dirs(t.tree)) {
			std::error_code ec;
			if (events_dir.empty() && fs::is_directory(d + "/trace/events", ec))
				events_dir = d;
		}
		return unknown_subsystem(t, sys, "trace/events/" + sys + ".h", events_dir);
	}
	std::vector<KernelFunction> all;
	std::string headers;
	for (const std::string &stem : stems) {
		const std::string header = "trace/events/" + stem + ".h";
		headers += (headers.empty() ? "" : " and ") + header;
		std::string name = "stp_tq_";
		for (char ch : stem)
			name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
		auto ko = builder_->build(t, name, query_source(stem));
		if (!ko)
			return TracepointError{fail("cannot compile " + header + " for " + t.release +
							    " to read its tracepoints: " + ko.error().what,
						    ko.error().hint)};
		auto fns = reader_.tracepoint_functions(*ko, "stp_tq_", header);
		if (!fns)
			return TracepointError{
				fail("cannot read the tracepoints of " + header + ": " + fns.error().what)};
		for (KernelFunction &f : *fns)
			all.push_back(std::move(f));
	}
	m.owned.push_back(events_of(sys, headers, all));
	return m.owned.back().get();
}

} // namespace stap_pmu::tracequery
