// corpus_runner.cpp - runs the script corpus through the front end.
//
//   corpus_runner KIND DIR... [--print]
//
// KIND is the folder's contract:
//   must-parse            parses without errors
//   must-fail-parse       parse errors; every "# expect: ..." line matches one
//   must-pass-semantics   parses and passes the semantic pass
//   must-fail-semantics   parses, semantic errors as expected
//   must-translate        passes 1-3 (tapsets, the target kernel's symbols,
//                         BTF and tracepoints; process probes: the binaries of
//                         this machine) against the installed 6.1 kernel
//                         whose release $STAP_PMU_CORPUS_RELEASE names (the
//                         test sets it: tests/lib/kernel.sh 6.1), as
//                         stap-pmu -p3 -r RELEASE
//   must-fail-translate   the same passes, errors as expected
//   roundtrip             every script that parses: -p1 output parses back and
//                         prints identically (the canonical form is stable)
//
// Every script of a contract folder starts with a line
// "# section: AREA/NAME", the SystemTap reference section it exercises
// (lang/statistics, tapset/syscalls, ...); the runner prints how many scripts
// each section has. An expectation is a comment line
// "# expect: NAME.stp:LINE:COL: error: TEXT" (severity "warning" works too);
// expectations must appear in order among the diagnostics. A line "# guru"
// parses with embedded C allowed. For the front-end contracts the kernel
// facts for %( %) conditionals are fixed: kernel_v 6.1.0, arch x86_64,
// CONFIG_X86=y, CONFIG_HZ=250. --print shows the diagnostics of each file.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>

#include "translator/driver/target_kernel.h"
#include "translator/driver/target_programs.h"
#include "translator/driver/translate_passes.h"
#include "translator/frontend/parser.h"
#include "translator/frontend/printer.h"
#include "translator/sema/sema.h"

namespace fs = std::filesystem;
using namespace stap_pmu;

namespace {

// The kernel the translate contracts are checked against: Debian 12's 6.1,
// which scripts/install-deps.sh installs (image, headers, System.map, BTF);
// its release (6.1.0-N-amd64, N as Debian moves on) from the environment.
std::string target_release()
{
	const char *r = getenv("STAP_PMU_CORPUS_RELEASE");
	return r ? r : "";
}

PreprocInput facts(bool guru)
{
	PreprocInput in;
	in.kernel_v = "6.1.0";
	in.kernel_vr = "6.1.0-57-amd64"; // a fact for %( kernel_vr %) only
	in.arch = Arch::X86_64;
	in.config.set("CONFIG_X86", "y");
	in.config.set("CONFIG_HZ", "250");
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

struct Verdict {
	bool ok = true;
	std::string why;
};

Verdict failed(std::string why)
{
	return {false, std::move(why)};
}

// One corpus script: its text and what its comment lines ask for.
struct Case {
	fs::path path;
	std::string text;
	std::string section; // "" : no "# section:" first line
	std::vector<std::string> expects;
	bool guru = false;
};

Case read_case(const fs::path &path)
{
	Case c;
	c.path = path;
	std::ifstream in(path);
	std::stringstream ss;
	ss << in.rdbuf();
	c.text = ss.str();
	std::istringstream lines(c.text);
	bool first = true;
	for (std::string l; std::getline(lines, l); first = false) {
		static const std::regex section("# section: ((lang|tapset|pmu)/[a-z0-9-]+)");
		std::smatch m;
		if (first && std::regex_match(l, m, section))
			c.section = m[1];
		if (l.rfind("# expect: ", 0) == 0)
			c.expects.push_back(l.substr(10));
		if (l == "# guru")
			c.guru = true;
	}
	return c;
}

std::string print(const Script &s)
{
	std::ostringstream os;
	print_script(s, os);
	return os.str();
}

Verdict roundtrip(const Case &c, const Script &script, const PreprocInput &pp)
{
	std::string first = print(script);
	SourceFile again(c.path.filename().string() + " (printed)", first);
	Diagnostics d2;
	Script s2 = parse(again, d2, pp);
	if (d2.has_errors()) {
		std::ostringstream os;
		d2.render(os);
		return failed("the printed form does not parse:\n" + os.str() + "--- printed:\n" +
			      first);
	}
	std::string second = print(s2);
	if (first != second)
		return failed("printing the reparsed script differs:\n--- first\n" + first +
			      "--- second\n" + second);
	return {};
}

// The diagnostics against the contract: errors or none, and the "# expect:"
// lines in order.
Verdict match(const std::string &kind, const Case &c, const Diagnostics &diags)
{
	bool want_fail = kind.rfind("must-fail-", 0) == 0;
	if (!want_fail && diags.has_errors()) {
		for (const Diagnostic &d : diags.all())
			if (d.severity == Severity::Error)
				return failed("unexpected error: " + diag_line(d));
	}
	if (want_fail && c.expects.empty())
		return failed("a failing script needs at least one '# expect: ...' line");
	if (want_fail && !diags.has_errors())
		return failed("expected errors, got none");
	size_t next = 0;
	for (const std::string &e : c.expects) {
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
			return failed("expected (in order): " + e + "\n  got:" + got);
		}
	}
	return {};
}

void show_diags(const Case &c, const Diagnostics &diags)
{
	std::cout << "== " << c.path.string() << "\n";
	for (const Diagnostic &d : diags.all())
		std::cout << diag_line(d) << "\n";
}

// The front-end contracts (parse, semantics, round trip).
Verdict check(const std::string &kind, const Case &c, bool show)
{
	SourceFile file(c.path.filename().string(), c.text);
	Diagnostics diags;
	PreprocInput pp = facts(c.guru);
	Script script = parse(file, diags, pp);
	bool parse_errors = diags.has_errors();
	if (!parse_errors && kind != "must-parse" && kind != "must-fail-parse" && kind != "roundtrip")
		analyze(script, diags);
	if (show)
		show_diags(c, diags);
	if (kind == "roundtrip")
		return parse_errors ? Verdict{} : roundtrip(c, script, pp);
	if (kind == "must-fail-semantics" && parse_errors)
		return failed("expected to parse, but: " + diag_line(diags.all().front()));
	if (kind == "must-fail-parse" && !parse_errors)
		return failed("expected a parse error, but the script parses");
	return match(kind, c, diags);
}

// Passes 1-3 as stap-pmu -p3 -r RELEASE runs them; the kernel's facts
// (symbols, BTF, tracepoints) are read once for the whole folder.
class Translator {
public:
	Translator()
	{
		cli_.release = target_release();
		cli_.pass = 3;
		opts_ = parse_options(cli_);
		facts_ = target_kernel_facts(cli_, opts_);
		process_ = target_process_facts(cli_);
		topts_.pmu_targets = {"all"};
		topts_.has_target = true; // as -x PID: @pmu_thread needs a target
	}
	// "" : the target kernel's tree is there
	std::string missing() const
	{
		if (cli_.release.empty())
			return "STAP_PMU_CORPUS_RELEASE names no kernel (tests/lib/kernel.sh 6.1 found none; "
			       "scripts/install-deps.sh installs it)";
		return opts_.pp.kernel_vr == cli_.release
			       ? ""
			       : "no build tree of " + cli_.release + " (scripts/install-deps.sh installs it)";
	}
	// The parsed script owns the sources the diagnostics point into.
	Parsed run(const Case &c, Diagnostics &diags) const
	{
		ParseOptions po = opts_;
		po.pp.guru = c.guru;
		Parsed p = parse_pass(std::make_unique<SourceFile>(c.path.filename().string(), c.text),
				      po, diags);
		if (diags.has_errors())
			return p;
		TranslateOptions t = topts_;
		t.guru = c.guru;
		Elaborated e = elaborate_pass(p, t, facts_.get(), process_.get(), diags);
		if (diags.has_errors())
			return p;
		Translated out = translate_pass(p, e, t);
		if (out.c_source.empty())
			diags.error({p.source.get(), 1, 1}, "pass 3 produced no C");
		return p;
	}

private:
	Cli cli_;
	ParseOptions opts_;
	std::unique_ptr<KernelFacts> facts_;
	std::unique_ptr<ProcessFacts> process_; // process("PATH") probes: the binaries
	TranslateOptions topts_;
};

Verdict check_translate(const std::string &kind, const Case &c, const Translator &tr, bool show)
{
	Diagnostics diags;
	Parsed p = tr.run(c, diags);
	if (show)
		show_diags(c, diags);
	return match(kind, c, diags);
}

const std::vector<std::string> KINDS = {"must-parse",     "must-fail-parse",     "must-pass-semantics",
					"must-fail-semantics", "must-translate", "must-fail-translate",
					"roundtrip"};

// How many scripts each reference section has.
void print_sections(const std::map<std::string, unsigned> &sections)
{
	std::cout << "scripts by reference section:\n";
	for (const auto &[name, n] : sections)
		std::cout << "  " << name << std::string(name.size() < 28 ? 28 - name.size() : 1, ' ')
			  << n << "\n";
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 3) {
		std::cerr << "usage: corpus_runner KIND DIR... [--print]\n";
		return 2;
	}
	std::string kind = argv[1];
	if (std::find(KINDS.begin(), KINDS.end(), kind) == KINDS.end()) {
		std::cerr << "corpus_runner: unknown contract '" << kind << "'\n";
		return 2;
	}
	bool show = std::string(argv[argc - 1]) == "--print";
	std::vector<fs::path> files;
	for (int i = 2; i < argc - (show ? 1 : 0); i++)
		for (const auto &e : fs::directory_iterator(argv[i]))
			if (e.path().extension() == ".stp")
				files.push_back(e.path());
	std::sort(files.begin(), files.end());
	bool translate = kind == "must-translate" || kind == "must-fail-translate";
	std::unique_ptr<Translator> tr;
	if (translate) {
		tr = std::make_unique<Translator>();
		if (!tr->missing().empty()) {
			std::cout << "FAIL: " << tr->missing() << "\n";
			return 1;
		}
	}
	unsigned nfailed = 0;
	std::map<std::string, unsigned> sections;
	for (const fs::path &p : files) {
		Case c = read_case(p);
		Verdict r;
		if (kind != "roundtrip" && c.section.empty())
			r = failed("the first line must be '# section: AREA/NAME' (e.g. "
				   "'# section: lang/statistics')");
		else
			r = translate ? check_translate(kind, c, *tr, show) : check(kind, c, show);
		sections[c.section.empty() ? "(none)" : c.section]++;
		if (!r.ok) {
			nfailed++;
			std::cout << "FAIL " << p.string() << ": " << r.why << "\n";
		}
	}
	if (kind != "roundtrip")
		print_sections(sections);
	std::cout << kind << ": " << files.size() - nfailed << " of " << files.size() << " passed\n";
	if (files.empty()) {
		std::cout << "no scripts found\n";
		return 1;
	}
	return nfailed ? 1 : 0;
}
