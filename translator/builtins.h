// builtins.h - builtin functions: name, types, and the C the code generator
// emits for a call. printf is special (format checked in format.h).
#pragma once

#include <string>
#include <vector>

#include "translator/types.h"

namespace stap_pmu {

struct Builtin {
	const char *name;
	Type ret;
	std::vector<Type> params;
	// C expression; "$1".."$9" are the arguments, "c" the probe context.
	const char *c_template;
	const char *summary;
};

const Builtin *find_builtin(const std::string &name);
const std::vector<Builtin> &all_builtins();

} // namespace stap_pmu
