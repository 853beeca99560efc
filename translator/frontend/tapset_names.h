// tapset_names.h - what a tapset file may define, read from its raw text
// without lexing it into tokens or parsing it: the translator parses a
// tapset file only when the script (or a tapset already pulled in) may use
// one of these names (tapsets.h).
//
// The answer is a superset, never a miss: every function, global and probe
// alias a file defines starts with an identifier at brace depth 0 outside
// the header of an ordinary (non-alias) probe, and the scanner collects all
// such identifiers, following the lexer's rules for comments, strings and
// embedded C. Where the text defeats that argument (unbalanced braces, a
// branch of %( %? %: %) that opens or closes a brace it does not close or
// open, an unterminated comment, string or embedded C) the file may
// define anything. Every identifier of a macro body counts, at any depth.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>

namespace stap_pmu {

struct TapsetNames {
	bool any = false; // the scan cannot bound what the file defines
	// first components of the names the file may define (a function's
	// or global's name, the first component of an alias name)
	std::unordered_set<std::string> idents;
};

TapsetNames scan_tapset_names(std::string_view text);

// The identifiers in text (for -D values and script arguments, whose tokens
// the preprocessor may paste into any file).
void add_identifiers(std::string_view text, std::unordered_set<std::string> &out);

// The first component's name of a probe point or symbol name: "vfs" for
// vfs.read, "kernel" for kernel.function("x"), "f" for f.
std::string first_component_name(const std::string &name);

} // namespace stap_pmu
