// print_family.cpp - the print-family table.
#include "translator/frontend/print_family.h"

namespace stap_pmu {

const std::vector<PrintFunction> &print_functions()
{
	static const std::vector<PrintFunction> all = {
		{"printf", PrintForm::Format, false, false},
		{"sprintf", PrintForm::Format, true, false},
		{"print", PrintForm::Values, false, false},
		{"println", PrintForm::Values, false, true},
		{"sprint", PrintForm::Values, true, false},
		{"sprintln", PrintForm::Values, true, true},
		{"printd", PrintForm::Delimited, false, false},
		{"printdln", PrintForm::Delimited, false, true},
	};
	return all;
}

const PrintFunction *find_print_function(const std::string &name)
{
	for (const PrintFunction &p : print_functions())
		if (name == p.name)
			return &p;
	return nullptr;
}

size_t printed_values(const PrintFunction &p, size_t nargs)
{
	if (p.form == PrintForm::Values || nargs == 0)
		return nargs;
	return nargs - 1;
}

} // namespace stap_pmu
