// diagnostics.h - errors and warnings collected as data, rendered like
//   t.stp:3:7: error: unknown PMU event 'INST_RETIRD'
//       x = @pmu("INST_RETIRD")
//                ^
//   note: did you mean 'INST_RETIRED:ANY_P'?
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "translator/frontend/source.h"

namespace stap_pmu {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
	Severity severity = Severity::Error;
	SourceLoc loc;
	std::string message;
	std::string hint; // printed as "note: ..." under the caret
};

class Diagnostics {
public:
	void error(SourceLoc loc, std::string msg, std::string hint = {});
	void warning(SourceLoc loc, std::string msg, std::string hint = {});

	// -w: warnings are dropped; -W: warnings are reported as errors.
	enum class WarningMode { Report, Suppress, AsErrors };
	void set_warning_mode(WarningMode m) { wmode_ = m; }

	bool has_errors() const { return errors_ != 0; }
	unsigned error_count() const { return errors_; }
	const std::vector<Diagnostic> &all() const { return diags_; }

	// Writes every diagnostic in the order reported.
	void render(std::ostream &os) const;

private:
	std::vector<Diagnostic> diags_;
	unsigned errors_ = 0;
	WarningMode wmode_ = WarningMode::Report;
};

std::string render_diagnostic(const Diagnostic &d);

} // namespace stap_pmu
