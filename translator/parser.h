// parser.h - recursive-descent parser: tokens -> Script.
#pragma once

#include <optional>

#include "translator/ast.h"
#include "translator/diagnostics.h"
#include "translator/source.h"

namespace stap_pmu {

// Parses a whole file. Syntax errors go to diags; the returned script holds
// everything that parsed (it is only meaningful when diags has no errors).
Script parse(const SourceFile &file, Diagnostics &diags);

} // namespace stap_pmu
