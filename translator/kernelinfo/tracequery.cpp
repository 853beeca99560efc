// tracequery.cpp - tracepoint prototypes from a query module's DWARF.
#include "translator/kernelinfo/tracequery.h"

#include "translator/support/suggest.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;

namespace stap_pmu::tracequery {

Config &config()
{
	static Config c;
	return c;
}

static bool valid_sys_char(char c)
{
	return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

bool split_spec(const std::string &spec, std::string &sys, std::string &event, std::string &err)
{
	size_t colon = spec.find(':');
	if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size() ||
	    spec.find(':', colon + 1) != std::string::npos) {
		err = "kernel.trace needs \"subsystem:event\", e.g. kernel.trace(\"sched:sched_switch\")";
		return false;
	}
	sys = spec.substr(0, colon);
	event = spec.substr(colon + 1);
	if (!std::all_of(sys.begin(), sys.end(), valid_sys_char)) {
		err = sys.find_first_of("*?[") != std::string::npos
			      ? "wildcards are only supported in the event part of kernel.trace(\"" +
					spec + "\")"
			      : "'" + sys + "' is not a tracepoint subsystem name";
		return false;
	}
	for (char c : event)
		if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '*' &&
		    c != '?' && c != '[' && c != ']' && c != '!' && c != '-') {
			err = "'" + event + "' is not a tracepoint name or pattern";
			return false;
		}
	return true;
}

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

std::vector<std::string> subsystems(const std::string &tree)
{
	std::vector<std::string> out;
	for (const std::string &d : include_dirs(tree)) {
		std::error_code ec;
		for (fs::directory_iterator it(d + "/trace/events", ec), end; !ec && it != end;
		     it.increment(ec)) {
			std::string f = it->path().filename().string();
			if (f.size() > 2 && f.compare(f.size() - 2, 2, ".h") == 0)
				out.push_back(f.substr(0, f.size() - 2));
		}
	}
	std::sort(out.begin(), out.end());
	out.erase(std::unique(out.begin(), out.end()), out.end());
	return out;
}

std::string probe_params(const Event &ev)
{
	if (!ev.unsupported.empty() || !ev.func)
		return "";
	std::string s = "void *__data";
	for (size_t i = 0; i < ev.func->params.size(); i++)
		s += ", " + ev.func->params[i].abi + (ev.func->params[i].abi.back() == '*' ? "" : " ") +
		     "a" + std::to_string(i);
	return s;
}

namespace {

struct Memo {
	bool have_target = false;
	std::optional<Target> target;
	std::string target_err;
	struct Result {
		std::unique_ptr<Subsystem> sys;
		std::string err, hint;
		bool unknown = false;
	};
	std::map<std::string, Result> subsystems;
};

Memo &memo()
{
	static Memo m;
	return m;
}

void query(const std::string &sys, Memo::Result &r)
{
	Memo &m = memo();
	Config &c = config();
	if (!m.have_target) {
		m.have_target = true;
		if (c.target)
			m.target = c.target(m.target_err);
		else
			m.target_err = "no target kernel configured";
	}
	if (!m.target) {
		r.err = "kernel.trace needs the target kernel's build tree: " + m.target_err;
		return;
	}
	const Target &t = *m.target;
	const std::string header = "trace/events/" + sys + ".h";
	bool found = false;
	std::string events_dir; // where the headers are, for messages
	for (const std::string &d : include_dirs(t.tree)) {
		std::error_code ec;
		found |= fs::is_regular_file(d + "/" + header, ec);
		if (events_dir.empty() && fs::is_directory(d + "/trace/events", ec))
			events_dir = d;
	}
	if (!found) {
		r.unknown = true;
		if (events_dir.empty())
			events_dir = t.tree + "/include";
		r.err = "no tracepoint subsystem '" + sys + "': " + header + " not found in " +
			events_dir;
		std::string near = closest_name(sys, subsystems(t.tree));
		r.hint = near.empty() ? "subsystems are the headers in " + events_dir + "/trace/events"
				      : "did you mean '" + near + "'?";
		return;
	}
	if (!c.build) {
		r.err = "cannot build the tracepoint query for '" + sys + "': no builder configured";
		return;
	}
	std::string name = "stp_tq_";
	for (char ch : sys)
		name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
	std::string err, detail;
	auto ko = c.build(t, name, query_source(sys), err, detail);
	if (!ko) {
		r.err = "cannot compile " + header + " for " + t.release + " to read its tracepoints: " + err;
		r.hint = detail;
		return;
	}
	auto fns = dwarf::tracepoint_functions(*ko, "stp_tq_", header, err);
	if (!fns) {
		r.err = "cannot read the tracepoints of " + header + ": " + err;
		return;
	}
	auto s = std::make_unique<Subsystem>();
	s->name = sys;
	s->header = header;
	for (dwarf::Function &f : *fns) {
		Event ev;
		ev.name = f.name;
		for (const dwarf::Param &p : f.params)
			if (p.abi.empty() && ev.unsupported.empty())
				ev.unsupported = "argument '" + p.name + "' of type " + p.type +
						 " is not an integer or pointer (passed by value)";
		ev.func = std::make_shared<const dwarf::Function>(std::move(f));
		s->events.push_back(std::move(ev));
	}
	r.sys = std::move(s);
}

} // namespace

const Subsystem *subsystem(const std::string &sys, std::string &err, std::string &hint,
			   bool *unknown_sys)
{
	Memo &m = memo();
	auto it = m.subsystems.find(sys);
	if (it == m.subsystems.end()) {
		it = m.subsystems.emplace(sys, Memo::Result{}).first;
		query(sys, it->second);
	}
	if (unknown_sys)
		*unknown_sys = it->second.unknown;
	if (!it->second.sys) {
		err = it->second.err;
		hint = it->second.hint;
		return nullptr;
	}
	return it->second.sys.get();
}

} // namespace stap_pmu::tracequery
