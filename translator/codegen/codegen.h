// codegen.h - C code generation: checked script -> one kernel module source
// file following the contract in docs/runtime.md.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "translator/frontend/ast.h"
#include "translator/probes/process_facts.h"
#include "translator/sema/sema.h"

namespace stap_pmu {

struct CodegenInput {
	const Script *script = nullptr;
	const SemaResult *sema = nullptr;
	std::string module_name;
	std::string script_hash;
	std::string pmu_targets;  // "skl,perf" for modinfo
	std::string pmu_tables_c; // emitted by pmu/ fat table builder ("" if no events)
	std::vector<std::pair<std::string, std::string>> defines; // -D NAME=VALUE
	std::string version;
	bool guru = false; // -g: %p prints raw addresses
	// the user binaries whose symbols and CFI the module holds (ubacktrace() ...)
	std::vector<UserUnwindData> user_binaries;
};

std::string generate_c(const CodegenInput &in);

// The C tables of the user binaries (runtime/stp_usym.h); "" for none.
std::string emit_user_tables(const std::vector<UserUnwindData> &bins);

// C string literal for s (escapes quotes, backslashes, controls, '?').
std::string c_string(const std::string &s);

// C literal for a 64-bit integer: "NLL", or "S64_MIN" for -2^63, whose
// digits as a literal would be an unsigned constant negated.
std::string c_int64(int64_t v);

} // namespace stap_pmu
