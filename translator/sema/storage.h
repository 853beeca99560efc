// storage.h - where each global lives (Storage in sema.h): the proof that a
// number is only accumulated into on the hot path, so that it can be kept
// per CPU and read without the lock. docs/runtime.md, "Globals: storage and
// locking", says what is proved and why.
#pragma once

#include <string>
#include <vector>

#include "translator/frontend/ast.h"
#include "translator/sema/sema.h"

namespace stap_pmu {

// Sets Symbol::storage and storage_why of every global and fills
// SemaResult::accumulates. Reads bodies, functions, call sets and the probe
// points of each body; run after the checker's final walk.
void assign_storage(const Script &script, SemaResult &r);

// -v: one line per global, "global NAME: per-CPU (WHY)" or "global NAME:
// shared, locked (WHY)", then one per probe body taking locks, "probe at
// LOC locks A, B".
std::vector<std::string> storage_summary(const SemaResult &r);

} // namespace stap_pmu
