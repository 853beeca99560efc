// parser.h - recursive-descent parser: tokens -> Script.
#pragma once

#include <optional>

#include "translator/frontend/ast.h"
#include "translator/frontend/diagnostics.h"
#include "translator/frontend/preprocess.h"
#include "translator/frontend/source.h"

namespace stap_pmu {

// Parses a whole file. Syntax errors go to diags; the returned script holds
// everything that parsed (it is only meaningful when diags has no errors).
// The preprocessor (%( %) conditionals, @define macros) runs first with the
// target kernel's facts in `pp`.
// With no target facts: PreprocInput{} (kernel_v and CONFIG_ values unknown).
Script parse(const SourceFile &file, Diagnostics &diags);
Script parse(const SourceFile &file, Diagnostics &diags, const PreprocInput &pp);

} // namespace stap_pmu
