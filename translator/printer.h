// printer.h - prints a parsed script back as source (stap-pmu -p1).
#pragma once

#include <ostream>

#include "translator/ast.h"

namespace stap_pmu {

void print_script(const Script &s, std::ostream &os);
std::string expr_str(const Expr &e);
std::string quote_string(const std::string &s);

} // namespace stap_pmu
