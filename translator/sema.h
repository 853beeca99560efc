// sema.h - semantic pass: probe points resolved, names bound, types
// inferred and checked. Input: the parsed Script; output: SemaResult, side
// tables keyed by syntax nodes (the tree itself is not modified).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "translator/ast.h"
#include "translator/diagnostics.h"
#include "translator/format.h"
#include "translator/probes/probe_kind.h"
#include "translator/types.h"

namespace stap_pmu {

struct Symbol {
	std::string name;
	Type type = Type::Unknown;
	bool global = false;
	SourceLoc decl;
	const Expr *init = nullptr; // globals: literal initializer
};

struct EventUse {
	std::string name;
	SourceLoc loc; // first use
};

struct ProbeBody {
	const Probe *probe = nullptr;
	std::vector<std::unique_ptr<Symbol>> locals;
	bool uses_globals = false;
};

struct ProbeInstance {
	ResolvedPoint point;
	size_t body = 0; // index into SemaResult::bodies
};

struct SemaResult {
	std::vector<std::unique_ptr<Symbol>> globals;
	std::vector<ProbeBody> bodies;        // one per `probe` in the script
	std::vector<ProbeInstance> instances; // one per probe point
	std::vector<EventUse> events;         // distinct @pmu events, first use first
	std::unordered_map<const Expr *, Type> types;
	std::unordered_map<const Expr *, const Symbol *> symbols; // Var -> symbol
	std::unordered_map<const Expr *, size_t> event_of;       // @pmu -> event index
	std::unordered_map<const Expr *, Format> formats;        // printf -> format

	Type type_of(const Expr &e) const
	{
		auto it = types.find(&e);
		return it == types.end() ? Type::Unknown : it->second;
	}
};

SemaResult analyze(const Script &script, Diagnostics &diags);

} // namespace stap_pmu
