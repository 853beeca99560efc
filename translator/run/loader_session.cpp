// loader_session.cpp - attach to and stop a module that is already loaded
// (stap-pmu --attach / --stop; stap-pmu-loader -A / -S). libc + libstdc++ only.
#include "translator/run/loader.h"

#include "translator/run/loader_detail.h"
#include "translator/support/sysutil.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

namespace stap_pmu::loader {

namespace {

using namespace detail;
using sys::now_ms;
using sys::sleep_ms;

volatile sig_atomic_t g_session_signal = 0;
void on_session_signal(int sig) { g_session_signal = sig; }

struct Session {
	ModuleFiles mf;
	int out = 1;
	int out_owned = -1;
	bool dest_ok = true;

	~Session()
	{
		if (mf.output >= 0)
			close(mf.output);
		if (out_owned >= 0)
			close(out_owned);
	}
};

bool open_session(const SessionOptions &o, Session &s)
{
	if (o.module_name.empty() || o.module_name.find('/') != std::string::npos) {
		error("a module name is needed (as in /proc/<name>)");
		return false;
	}
	s.mf.dir = "/proc/" + o.module_name;
	s.mf.json = o.json;
	if (!open_output(s.mf)) {
		int e = errno;
		std::string file = s.mf.dir + (o.json ? "/records" : "/output");
		if (e == ENOENT && access(s.mf.dir.c_str(), F_OK) != 0)
			error("module " + o.module_name + " is not loaded (no " + file + ")");
		else
			error("cannot open " + file + ": " + strerror(e));
		return false;
	}
	s.out = o.output_fd;
	if (!o.output_file.empty()) {
		/* 0600: script output can hold kernel data */
		s.out_owned = open(o.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				 0600);
		if (s.out_owned < 0) {
			error("cannot create " + o.output_file + ": " + strerror(errno));
			return false;
		}
		s.out = s.out_owned;
	}
	return true;
}

// stop, drain until stopped, report, unload: the end of the load sequence.
int stop_and_unload(const SessionOptions &o, Session &s, std::optional<Status> st)
{
	std::optional<Status> fin = stop_and_drain(s.mf, s.out, s.dest_ok, st, o.module_name,
						   o.stop_timeout_ms, o.poll_ms);
	int rc = fin ? fin->exit_code : 1;
	close(s.mf.output);
	s.mf.output = -1;
	if (!unload(o.module_name, o.unload_timeout_ms, o.verbose))
		return 1;
	if (!fin || !s.dest_ok || rc < 0 || rc > 255)
		return 1;
	return rc;
}

} // namespace

int stop_module(const SessionOptions &o)
{
	Session s;
	if (!open_session(o, s))
		return 1;
	struct sigaction ign = {}, old_pipe = {};
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old_pipe);
	int err = 0;
	std::optional<Status> st = read_status(s.mf, err);
	if (o.verbose && st)
		say("stap-pmu: stopping " + o.module_name + " (state " + st->state + ")");
	int rc = stop_and_unload(o, s, st);
	sigaction(SIGPIPE, &old_pipe, nullptr);
	return rc;
}

int attach_module(const SessionOptions &o)
{
	Session s;
	if (!open_session(o, s))
		return 1;
	struct sigaction ign = {}, old_pipe = {}, act = {}, old_int = {}, old_term = {};
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old_pipe);
	g_session_signal = 0;
	act.sa_handler = on_session_signal; // no SA_RESTART: a signal ends the nap
	sigemptyset(&act.sa_mask);
	sigaction(SIGINT, &act, &old_int);
	sigaction(SIGTERM, &act, &old_term);
	if (o.verbose)
		say("stap-pmu: attached to " + o.module_name + " (interrupt to detach; stap-pmu --stop " +
		    o.module_name + " stops it)");
	int rc = 1, err = 0;
	std::optional<Status> st;
	for (;;) {
		drain_output(s.mf, s.out, s.dest_ok);
		st = read_status(s.mf, err);
		if (!st) {
			error("cannot read " + s.mf.dir + "/status: " +
			      (err == EPROTO ? "unexpected contents" : strerror(err)));
			break;
		}
		if (st->state == "exit-requested" || st->state == "stopped") {
			if (o.verbose)
				say("stap-pmu: the script requested exit; stopping " + o.module_name);
			rc = stop_and_unload(o, s, st);
			break;
		}
		if (g_session_signal || !s.dest_ok) {
			drain_output(s.mf, s.out, s.dest_ok);
			if (o.verbose || g_session_signal)
				say("stap-pmu: detached from " + o.module_name + "; it keeps running");
			rc = s.dest_ok ? 0 : 1;
			break;
		}
		sleep_ms(o.poll_ms);
	}
	sigaction(SIGINT, &old_int, nullptr);
	sigaction(SIGTERM, &old_term, nullptr);
	sigaction(SIGPIPE, &old_pipe, nullptr);
	return rc;
}

} // namespace stap_pmu::loader
