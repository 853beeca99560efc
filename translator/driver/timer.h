// timer.h - -v: one line per pass with its time, as stap prints them:
// "Pass 1: parsed user script and 2 library scripts in 12ms."
#pragma once

#include <chrono>
#include <iostream>
#include <string>

namespace stap_pmu {

class Timer {
public:
	explicit Timer(int verbose) : verbose_(verbose) {}
	// the next pass is timed from now
	void restart() { last_ = std::chrono::steady_clock::now(); }
	void pass(const std::string &what)
	{
		auto now = std::chrono::steady_clock::now();
		if (verbose_)
			std::cerr << what << " in "
				  << std::chrono::duration_cast<std::chrono::milliseconds>(now - last_)
					     .count()
				  << "ms.\n";
		last_ = now;
	}

private:
	int verbose_;
	std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

} // namespace stap_pmu
