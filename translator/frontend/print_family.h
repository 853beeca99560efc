// print_family.h - the eight print-family functions (print, printf, printd and
// their s- and -ln forms): the one description the parser, the checker and the
// code generator read, so a new member or rule is written once.
#pragma once

#include <string>
#include <vector>

namespace stap_pmu {

enum class PrintForm {
	Values,    // print(a, b...): the values, concatenated
	Format,    // printf(fmt, ...): a string literal format first
	Delimited, // printd(delim, a, b...): a string literal delimiter first
};

struct PrintFunction {
	const char *name;
	PrintForm form;
	bool to_string; // the s- forms return the text instead of printing it
	bool newline;   // the -ln forms end with a newline
};

// The eight members, in the order "did you mean" lists them.
const std::vector<PrintFunction> &print_functions();
// The member called name, or nullptr.
const PrintFunction *find_print_function(const std::string &name);
// The arguments that are printed values: all but printf's format and printd's delimiter.
size_t printed_values(const PrintFunction &p, size_t nargs);

} // namespace stap_pmu
