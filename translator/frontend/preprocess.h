// preprocess.h - SystemTap's preprocessor at the token level:
//   %( kernel_v >= "5.0" %? tokens %: tokens %)   conditionals
//   @define NAME(a, b) %( body %)  and @NAME(x, y)  macros
// The facts the conditions test come from the target kernel tree; the driver
// fills PreprocInput from it (driver/target_kernel.h): the preprocessor reads
// no file and asks the system nothing.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "translator/frontend/diagnostics.h"
#include "translator/frontend/lexer.h"
#include "translator/support/arch.h"
#include "translator/support/kconfig.h"

namespace stap_pmu {

// The SystemTap version stap-pmu's language is compatible with: what
// %( systemtap_v ... %) compares against unless --compatible=VERSION says
// otherwise (docs/language.md, "Preprocessor").
inline constexpr const char *compatible_default = "4.8";

struct PreprocInput {
	std::string kernel_v;  // "6.1.0"
	std::string kernel_vr; // "6.1.0-57-amd64"
	Arch arch = host_arch(); // `arch`, spelled arch_name(): "x86_64", "arm64"
	std::string compatible = compatible_default; // systemtap_v
	KernelConfig config;   // CONFIG_X -> "y", "m", "\"str\"", "123"
	bool guru = false;     // -g: embedded C allowed
	// -D NAME=VALUE: replaces the body of the script's @define NAME (a
	// macro without parameters) with VALUE's tokens
	std::map<std::string, std::string> defines;
	// the script's arguments (stap-pmu SCRIPT ARG...): $1..$N paste ARG's
	// tokens, @1..@N are ARG as a string, $# and @# their count
	std::vector<std::string> args;
};

std::vector<Token> preprocess(std::vector<Token> toks, const PreprocInput &in,
			      Diagnostics &diags);

} // namespace stap_pmu
