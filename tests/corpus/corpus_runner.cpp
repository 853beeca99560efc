// corpus_runner.cpp - runs the script corpus through the front end.
//
//   corpus_runner KIND DIR [--print]
//
// KIND is the folder's contract:
//   must-parse            parses without errors
//   must-fail-parse       parse errors; every "# expect: ..." line matches one
//   must-pass-semantics   parses and passes the semantic pass
//   must-fail-semantics   parses, semantic errors as expected
//   roundtrip             every script that parses: -p1 output parses back and
//                         prints identically (the canonical form is stable)
//
// An expectation is a comment line "# expect: NAME.stp:LINE:COL: error: TEXT"
// (severity "warning" works too); expectations must appear in order among the
// diagnostics. A line "# guru" parses with embedded C allowed. The kernel
// facts for %( %) conditionals are fixed: kernel_v 6.1.0, arch x86_64,
// CONFIG_X86=y, CONFIG_HZ=250. --print shows the diagnostics of each file.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "translator/frontend/parser.h"
#include "translator/frontend/printer.h"
#include "translator/sema/sema.h"

namespace fs = std::filesystem;
using namespace stap_pmu;

namespace {

PreprocInput facts(bool guru)
{
	PreprocInput in;
	in.kernel_v = "6.1.0";
	in.kernel_vr = "6.1.0-57-amd64";
	in.arch = "x86_64";
	in.config["CONFIG_X86"] = "y";
	in.config["CONFIG_HZ"] = "250";
	in.guru = guru;
	return in;
}

std::string diag_line(const Diagnostic &d)
{
	const char *sev = d.severity == Severity::Error ? "error" : d.severity == Severity::Warning
									? "warning"
									: "note";
	return d.loc.str() + ": " + sev + ": " + d.message;
}

struct Result {
	bool ok = true;
	std::string why;
};

std::string print(const Script &s)
{
	std::ostringstream os;
	print_script(s, os);
	return os.str();
}

Result check(const std::string &kind, const fs::path &path, bool show)
{
	std::ifstream in(path);
	std::stringstream ss;
	ss << in.rdbuf();
	std::string text = ss.str();
	std::vector<std::string> expects;
	bool guru = false;
	std::istringstream lines(text);
	for (std::string l; std::getline(lines, l);) {
		if (l.rfind("# expect: ", 0) == 0)
			expects.push_back(l.substr(10));
		if (l == "# guru")
			guru = true;
	}
	SourceFile file(path.filename().string(), text);
	Diagnostics diags;
	PreprocInput pp = facts(guru);
	Script script = parse(file, diags, pp);
	bool parse_errors = diags.has_errors();
	if (!parse_errors && kind != "must-parse" && kind != "must-fail-parse" && kind != "roundtrip")
		analyze(script, diags);
	if (show) {
		std::cout << "== " << path.string() << "\n";
		for (const Diagnostic &d : diags.all())
			std::cout << diag_line(d) << "\n";
	}
	Result r;
	auto fail = [&](std::string why) {
		r.ok = false;
		r.why = std::move(why);
		return r;
	};
	if (kind == "roundtrip") {
		if (parse_errors)
			return r; // not a parseable script: nothing to check
		std::string first = print(script);
		SourceFile again(path.filename().string() + " (printed)", first);
		Diagnostics d2;
		Script s2 = parse(again, d2, pp);
		if (d2.has_errors()) {
			std::ostringstream os;
			d2.render(os);
			return fail("the printed form does not parse:\n" + os.str() + "--- printed:\n" + first);
		}
		std::string second = print(s2);
		if (first != second)
			return fail("printing the reparsed script differs:\n--- first\n" + first +
				    "--- second\n" + second);
		return r;
	}
	bool want_fail = kind == "must-fail-parse" || kind == "must-fail-semantics";
	if (kind == "must-fail-semantics" && parse_errors)
		return fail("expected to parse, but: " + diag_line(diags.all().front()));
	if (kind == "must-fail-parse" && !parse_errors)
		return fail("expected a parse error, but the script parses");
	if (!want_fail && diags.has_errors()) {
		for (const Diagnostic &d : diags.all())
			if (d.severity == Severity::Error)
				return fail("unexpected error: " + diag_line(d));
	}
	if (want_fail && expects.empty())
		return fail("a failing script needs at least one '# expect: ...' line");
	if (want_fail && !diags.has_errors())
		return fail("expected errors, got none");
	size_t next = 0;
	for (const std::string &e : expects) {
		bool found = false;
		for (; next < diags.all().size(); next++)
			if (diag_line(diags.all()[next]) == e) {
				found = true;
				next++;
				break;
			}
		if (!found) {
			std::string got;
			for (const Diagnostic &d : diags.all())
				got += "\n    " + diag_line(d);
			return fail("expected (in order): " + e + "\n  got:" + got);
		}
	}
	return r;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 3) {
		std::cerr << "usage: corpus_runner KIND DIR... [--print]\n";
		return 2;
	}
	std::string kind = argv[1];
	bool show = std::string(argv[argc - 1]) == "--print";
	std::vector<fs::path> files;
	for (int i = 2; i < argc - (show ? 1 : 0); i++)
		for (const auto &e : fs::directory_iterator(argv[i]))
			if (e.path().extension() == ".stp")
				files.push_back(e.path());
	std::sort(files.begin(), files.end());
	unsigned failed = 0;
	for (const fs::path &p : files) {
		auto r = check(kind, p, show);
		if (!r.ok) {
			failed++;
			std::cout << "FAIL " << p.string() << ": " << r.why << "\n";
		}
	}
	std::cout << kind << ": " << files.size() - failed << " of " << files.size() << " passed\n";
	if (files.empty()) {
		std::cout << "no scripts found\n";
		return 1;
	}
	return failed ? 1 : 0;
}
