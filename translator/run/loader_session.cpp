// loader_session.cpp - attach to and stop a module that is already loaded
// (stap-pmu --attach / --stop; stap-pmu-loader -A / -S). libc + libstdc++ only.
#include "translator/run/loader.h"

#include "translator/run/loader_detail.h"
#include "translator/support/signals.h"
#include "translator/support/sysutil.h"

#include <unistd.h>

#include <cerrno>

namespace stap_pmu::loader {

namespace {

using namespace detail;

// The module's output files and where its output goes.
struct Attached {
	ModuleFiles mf;
	sys::Fd out_file;
	Sink out;
};

Status open_session(const SessionOptions &o, Attached &s)
{
	if (o.module_name.empty() || o.module_name.find('/') != std::string::npos)
		return fail("a module name is needed (as in /proc/<name>)");
	s.mf.dir = "/proc/" + o.module_name;
	s.mf.json = o.json;
	if (Status st = open_output(s.mf); !st) {
		std::string file = s.mf.dir + (o.json ? "/records" : "/output");
		if (st.error().code == ENOENT && access(s.mf.dir.c_str(), F_OK) != 0)
			return fail("module " + o.module_name + " is not loaded (no " + file + ")");
		return fail("cannot open " + file + ": " + st.error().what);
	}
	s.out.fd = o.output_fd;
	if (!o.output_file.empty()) {
		auto f = open_output_file(o.output_file);
		if (!f)
			return f.error();
		s.out_file = std::move(*f);
		s.out.fd = s.out_file.get();
	}
	return {};
}

// stop, drain until stopped, report, unload: the end of the load sequence.
Result<int> stop_and_unload(const SessionOptions &o, Attached &s, std::optional<ModuleStatus> st)
{
	std::optional<ModuleStatus> fin = stop_and_drain(s.mf, s.out, st, o.module_name,
						   o.stop_timeout_ms, o.poll_ms);
	int rc = fin ? fin->exit_code : 1;
	if (fin && o.verbose && fin->nested)
		say(nested_note(*fin));
	s.mf.output.reset();
	if (Status u = unload(o.module_name, o.unload_timeout_ms, o.verbose); !u)
		return u.error();
	if (!fin || !s.out.ok || rc < 0 || rc > 255)
		return 1;
	return rc;
}

} // namespace

Result<int> stop_module(const SessionOptions &o)
{
	Attached s;
	if (Status r = open_session(o, s); !r)
		return r.error();
	sys::SignalScope no_sigpipe(sys::SignalScope::kIgnorePipe);
	std::optional<ModuleStatus> st;
	if (auto r = read_status(s.mf))
		st = *r;
	if (o.verbose && st)
		say("stap-pmu: stopping " + o.module_name + " (state " + st->state + ")");
	return stop_and_unload(o, s, st);
}

Result<int> attach_module(const SessionOptions &o)
{
	Attached s;
	if (Status r = open_session(o, s); !r)
		return r.error();
	sys::SignalScope signals(sys::SignalScope::kIgnorePipe | sys::SignalScope::kCatchStop);
	if (o.verbose)
		say("stap-pmu: attached to " + o.module_name + " (interrupt to detach; stap-pmu --stop " +
		    o.module_name + " stops it)");
	for (;;) {
		drain_output(s.mf, s.out);
		auto st = read_status(s.mf);
		if (!st)
			return st.error();
		if (st->state == "exit-requested" || st->state == "stopped") {
			if (o.verbose)
				say("stap-pmu: the script requested exit; stopping " + o.module_name);
			return stop_and_unload(o, s, *st);
		}
		if (signals.caught() || !s.out.ok) {
			drain_output(s.mf, s.out);
			if (o.verbose || signals.caught())
				say("stap-pmu: detached from " + o.module_name + "; it keeps running");
			return s.out.ok ? 0 : 1;
		}
		sys::sleep_ms(o.poll_ms);
	}
}

} // namespace stap_pmu::loader
