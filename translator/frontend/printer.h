// printer.h - prints a parsed script back as source (stap-pmu -p1). The
// output is canonical: it parses back to the same tree, and printing that
// tree again gives the same text.
#pragma once

#include <ostream>

#include "translator/frontend/ast.h"

namespace stap_pmu {

void print_script(const Script &s, std::ostream &os);
// top: the expression is a whole statement, argument or right side of an
// assignment, so an assignment in it needs no parentheses.
std::string expr_str(const Expr &e, bool top = true);
std::string quote_string(const std::string &s);

} // namespace stap_pmu
