// diagnostics.cpp - collecting and rendering diagnostics.
#include "translator/frontend/diagnostics.h"

namespace stap_pmu {

void Diagnostics::error(SourceLoc loc, std::string msg, std::string hint)
{
	diags_.push_back({Severity::Error, loc, std::move(msg), std::move(hint)});
	errors_++;
}

void Diagnostics::warning(SourceLoc loc, std::string msg, std::string hint)
{
	if (wmode_ == WarningMode::Suppress)
		return;
	if (wmode_ == WarningMode::AsErrors) {
		error(loc, std::move(msg) + " (warnings are errors with -W)", std::move(hint));
		return;
	}
	diags_.push_back({Severity::Warning, loc, std::move(msg), std::move(hint)});
}

static const char *severity_name(Severity s)
{
	switch (s) {
	case Severity::Error:
		return "error";
	case Severity::Warning:
		return "warning";
	case Severity::Note:
		return "note";
	}
	return "error";
}

std::string render_diagnostic(const Diagnostic &d)
{
	std::string out;
	if (d.loc.valid())
		out += d.loc.str() + ": ";
	out += std::string(severity_name(d.severity)) + ": " + d.message + "\n";
	if (d.loc.valid()) {
		std::string_view line = d.loc.file->line(d.loc.line);
		// Very long lines (generated or hostile input) are cut around the caret.
		size_t col = d.loc.col ? d.loc.col - 1 : 0;
		size_t start = 0;
		if (line.size() > 160 && col > 80)
			start = col - 80;
		std::string_view shown = line.substr(std::min(start, line.size()), 160);
		out += "    ";
		out += shown;
		out += "\n    ";
		for (size_t i = start; i < col && i - start < shown.size(); i++)
			out += line[i] == '\t' ? '\t' : ' ';
		out += "^\n";
	}
	if (!d.hint.empty())
		out += "note: " + d.hint + "\n";
	return out;
}

void Diagnostics::render(std::ostream &os) const
{
	for (const Diagnostic &d : diags_)
		os << render_diagnostic(d);
}

} // namespace stap_pmu
