// builtins.h - builtin functions: name, types, and the C the code generator
// emits for a call. printf, sprintf, print, println, sprint, sprintln,
// printd and printdln are special (see sema.cpp and codegen.cpp).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "translator/frontend/types.h"

namespace stap_pmu {

struct Builtin {
	const char *name;
	Type ret;
	std::vector<Type> params;
	// C expression; "$1".."$9" are the arguments, "c" the probe context,
	// "$t" a fresh string temporary (MAXSTRINGLEN bytes) for the result.
	const char *c_template;
	const char *summary;
	size_t optional = 0;   // trailing parameters that may be left out
	bool may_fail = false; // can raise a script error
};

const Builtin *find_builtin(const std::string &name);
const std::vector<Builtin> &all_builtins();
// The names of all_builtins() (tapset resolution never pulls these in).
std::set<std::string> builtin_names();

} // namespace stap_pmu
