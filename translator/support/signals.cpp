// signals.cpp - scoped signal dispositions.
#include "translator/support/signals.h"

namespace stap_pmu::sys {

namespace {

volatile sig_atomic_t g_caught = 0;

void on_stop_signal(int sig)
{
	g_caught = sig;
}

} // namespace

SignalScope::SignalScope(unsigned flags) : flags_(flags)
{
	if (flags_ & kIgnorePipe) {
		struct sigaction ign = {};
		ign.sa_handler = SIG_IGN;
		sigaction(SIGPIPE, &ign, &old_pipe_);
	}
	if (flags_ & kCatchStop) {
		g_caught = 0;
		struct sigaction act = {};
		act.sa_handler = on_stop_signal; // no SA_RESTART
		sigemptyset(&act.sa_mask);
		sigaction(SIGINT, &act, &old_int_);
		sigaction(SIGTERM, &act, &old_term_);
	}
}

SignalScope::~SignalScope()
{
	if (flags_ & kCatchStop) {
		sigaction(SIGINT, &old_int_, nullptr);
		sigaction(SIGTERM, &old_term_, nullptr);
	}
	if (flags_ & kIgnorePipe)
		sigaction(SIGPIPE, &old_pipe_, nullptr);
}

int SignalScope::caught() const
{
	return g_caught;
}

void SignalScope::clear()
{
	g_caught = 0;
}

} // namespace stap_pmu::sys
