// signals.h - signal dispositions for a scope, put back when it ends.
// libc only: the static guest loader links it.
#pragma once

#include <signal.h>

namespace stap_pmu::sys {

// Installs, for the life of the object, a handler that records SIGINT and
// SIGTERM (kCatchStop; no SA_RESTART, so a signal ends a nap early) and/or
// ignores SIGPIPE (kIgnorePipe: a reader that went away must not kill us
// before we clean up). The previous dispositions are restored on destruction.
class SignalScope {
public:
	enum Flags : unsigned { kIgnorePipe = 1, kCatchStop = 2 };
	explicit SignalScope(unsigned flags);
	SignalScope(const SignalScope &) = delete;
	SignalScope &operator=(const SignalScope &) = delete;
	~SignalScope();

	// The last SIGINT/SIGTERM caught since a kCatchStop scope began or
	// since clear(); 0 when none.
	int caught() const;
	void clear();

private:
	unsigned flags_;
	struct sigaction old_pipe_ = {}, old_int_ = {}, old_term_ = {};
};

} // namespace stap_pmu::sys
