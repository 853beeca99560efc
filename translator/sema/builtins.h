// builtins.h - builtin functions: name, types, and the C the code generator
// emits for a call. The print family is not here: frontend/print_family.h.
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
	// SystemTap has it but stap-pmu does not: a call is refused with this reason
	const char *unsupported = nullptr;
};

// A name may have several entries with different numbers of parameters
// (kernel_string(addr) and kernel_string(addr, err_msg)).
// The first entry of a name (nullptr: no builtin has it).
const Builtin *find_builtin(const std::string &name);
// The entry of a name that takes nargs arguments, or nullptr.
const Builtin *find_builtin(const std::string &name, size_t nargs);
// The argument counts a name accepts, e.g. "1 or 2" (for messages).
std::string builtin_arities(const std::string &name);
const std::vector<Builtin> &all_builtins();
// The names of all_builtins() (tapset resolution never pulls these in).
std::set<std::string> builtin_names();

} // namespace stap_pmu
