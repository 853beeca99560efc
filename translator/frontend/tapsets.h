// tapsets.h - script libraries (.stp files in tapsets/ and -I DIRs). A
// tapset file is pulled into a script when the script (or a tapset already
// pulled in) uses one of its symbols: a function it calls, a global it reads
// without declaring, or a probe alias it probes.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "translator/frontend/ast.h"
#include "translator/frontend/diagnostics.h"
#include "translator/frontend/preprocess.h"
#include "translator/frontend/source.h"

namespace stap_pmu {

struct TapsetFile {
	std::unique_ptr<SourceFile> source;
	Script script;
	std::vector<std::string> defines; // functions, globals, alias names
};

// Parses every *.stp under dirs (sorted, first dir first). Files with syntax
// errors are reported only when they are pulled in.
std::vector<TapsetFile> load_tapsets(const std::vector<std::string> &dirs, const PreprocInput &pp);

// Moves the needed tapsets' declarations into script (marked from_tapset,
// not printed by -p1); returns the sources they point into, which must
// outlive the script. A call of a name in builtins never pulls a tapset in.
std::vector<std::unique_ptr<SourceFile>> resolve_tapsets(Script &script,
							 std::vector<TapsetFile> tapsets,
							 const std::set<std::string> &builtins,
							 Diagnostics &diags);

// Whether the probe point name (probe_point_str form) matches pattern, a
// probe point that may hold wildcards ('*', '?', '[...]') in its component
// names: component by component, so that "syscall.*" matches
// "syscall.read" but not "syscall.read.return"; arguments compare equal.
bool probe_name_matches(const std::string &pattern, const std::string &name);
bool has_wildcard(const std::string &point);

// A probe point's components, split at the dots outside arguments:
// kernel.function("a.b").return -> kernel, function("a.b"), return.
std::vector<std::string> probe_point_components(const std::string &point);
// One component against a pattern component: its name a glob, its argument
// equal ("function(\"x\")" matches "func*(\"x\")").
bool probe_component_matches(const std::string &pattern, const std::string &component);
bool component_has_wildcard(const std::string &component);
// Whether pattern's leading components match all of name's, with at least
// one component of pattern left over: the suffix an alias's expansions get
// (syscall.read.return.maxactive(5) over the alias syscall.read.return).
bool probe_name_prefixes(const std::string &pattern, const std::string &name);

// Probe alias names the tapsets define (for -l / -L).
std::vector<std::string> tapset_aliases(const std::vector<TapsetFile> &tapsets);

} // namespace stap_pmu
