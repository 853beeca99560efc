// frontend_helpers.h - running the front end on a script string in tests.
#pragma once

#include <sstream>
#include <string>

#include "translator/frontend/diagnostics.h"
#include "translator/frontend/parser.h"
#include "translator/frontend/printer.h"
#include "translator/sema/sema.h"

namespace stap_pmu::test {

// Parses text as "t.stp" and returns every rendered diagnostic.
struct Front {
	explicit Front(std::string text) : file("t.stp", std::move(text))
	{
		script = parse(file, diags);
	}
	std::string rendered() const
	{
		std::ostringstream os;
		diags.render(os);
		return os.str();
	}
	std::string printed() const
	{
		std::ostringstream os;
		print_script(script, os);
		return os.str();
	}
	SourceFile file;
	Diagnostics diags;
	Script script;
};

// Parses and analyzes (facts: the target kernel, nullptr: none).
struct Checked : Front {
	explicit Checked(std::string text, const KernelFacts *facts = nullptr)
		: Front(std::move(text))
	{
		if (!diags.has_errors())
			sema = analyze(script, facts, diags);
	}
	SemaResult sema;
};

// The first error of a checked script as "file:line:col: message [hint]".
inline std::string first_error(const std::string &text, const KernelFacts *facts = nullptr)
{
	Checked c(text, facts);
	for (const Diagnostic &d : c.diags.all())
		if (d.severity == Severity::Error)
			return d.loc.str() + ": " + d.message + (d.hint.empty() ? "" : " [" + d.hint + "]");
	return "no error";
}

} // namespace stap_pmu::test
