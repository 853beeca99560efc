// pipeline.h - the translator's passes in order, each with typed input and
// output: parse (-p1), elaborate (-p2: sema + PMU tables), translate (-p3: C).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "translator/ast.h"
#include "translator/diagnostics.h"
#include "translator/pmu_pass.h"
#include "translator/sema.h"
#include "translator/source.h"

namespace stap_pmu {

struct TranslateOptions {
	std::vector<std::string> pmu_targets{"host", "perf"};
	std::vector<std::pair<std::string, std::string>> defines;
	std::string module_name; // "" = stap_pmu_<hash>
	std::string version;
};

struct Parsed {
	std::unique_ptr<SourceFile> source;
	Script script;
};

struct Elaborated {
	SemaResult sema;
	PmuPassResult pmu;
};

struct Translated {
	std::string module_name;
	std::string script_hash;
	std::string c_source;
};

Parsed parse_pass(std::unique_ptr<SourceFile> source, Diagnostics &diags);
Elaborated elaborate_pass(const Parsed &p, const TranslateOptions &opts, Diagnostics &diags);
Translated translate_pass(const Parsed &p, const Elaborated &e, const TranslateOptions &opts);

// What -p2 prints: probes, globals, events and the candidate rows.
void print_elaborated(const Parsed &p, const Elaborated &e, std::ostream &os);

// Stable 64-bit hash (FNV-1a) of everything that changes the module.
std::string script_hash(const std::string &text, const TranslateOptions &opts);

} // namespace stap_pmu
