// tapsets.h - script libraries (.stp files in tapsets/ and -I DIRs). A
// tapset file is pulled into a script when the script (or a tapset already
// pulled in) uses one of its symbols: a function it calls, a global it reads
// without declaring, or a probe alias it probes. Files are read when the
// library opens but parsed only when the script may use what they define
// (tapset_names.h says which names a file may define, from its raw text).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "translator/frontend/ast.h"
#include "translator/frontend/diagnostics.h"
#include "translator/frontend/preprocess.h"
#include "translator/frontend/source.h"
#include "translator/frontend/tapset_names.h"

namespace stap_pmu {

struct TapsetFile {
	std::unique_ptr<SourceFile> source;
	Script script;
	std::vector<std::string> defines; // functions, globals, alias names
};

// Parses every *.stp under dirs (sorted, first dir first). Files with syntax
// errors are reported only when they are pulled in.
std::vector<TapsetFile> load_tapsets(const std::vector<std::string> &dirs, const PreprocInput &pp);

// The *.stp files under some dirs, in load_tapsets' order, each read and
// scanned for the names it may define, and parsed (with pp) on first need.
struct TapsetLibrary {
	struct Entry {
		TapsetNames names;
		bool parsed = false;
		TapsetFile file; // source from the start; script, defines once parsed
	};
	const PreprocInput *pp = nullptr; // open_tapsets' pp: must outlive the library
	std::vector<Entry> files;
	// -D values and script arguments: the preprocessor may paste their
	// tokens into any file, so any file may define their identifiers
	std::unordered_set<std::string> pasted;
	bool pasted_braces = false; // and with a brace, anything at all

	// Whether file i may define want (a function, global or probe alias
	// name, or a probe point, wildcards allowed, that may name an alias
	// or extend one with a suffix).
	bool may_define(size_t i, const std::string &want) const;
	// File i, parsed on the first call.
	TapsetFile &file(size_t i);
	size_t parsed_count() const;
};

// pp must outlive the library (files are parsed with it on first need).
TapsetLibrary open_tapsets(const std::vector<std::string> &dirs, const PreprocInput &pp);
// Adds the files under dirs after the library's own (the generated
// syscall tapset).
void open_more_tapsets(TapsetLibrary &lib, const std::vector<std::string> &dirs);

// Moves the needed tapsets' declarations into script (marked from_tapset,
// not printed by -p1); returns the sources they point into, which must
// outlive the script. A call of a name in builtins never pulls a tapset in.
// Parses only the files that may define a symbol the script needs; the
// files it pulls in are moved out of the library.
std::vector<std::unique_ptr<SourceFile>> resolve_tapsets(Script &script, TapsetLibrary &lib,
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

// The one rule for whether a probe point names a probe alias: the alias
// itself, a glob over it, or it with a suffix its expansions get
// (probe_name_matches or probe_name_prefixes). resolve_tapsets pulls in the
// tapsets whose aliases a script names by it, and the driver follows the
// same rule through aliases of aliases to see whether a script needs the
// generated syscall.* tapset.
bool point_names_alias(const std::string &point, const std::string &alias);

// Probe alias names the tapsets define (for -l / -L).
std::vector<std::string> tapset_aliases(const std::vector<TapsetFile> &tapsets);

} // namespace stap_pmu
