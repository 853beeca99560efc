// fuzz_frontend.cpp - libFuzzer target over the front end: preprocess,
// parse, the -p1 round trip (the printed form must parse back and print
// identically) and the semantic pass. Built with clang++
// -fsanitize=fuzzer,address by run-fuzz.sh.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "translator/parser.h"
#include "translator/printer.h"
#include "translator/sema.h"

using namespace stap_pmu;

static PreprocInput facts()
{
	PreprocInput in;
	in.kernel_v = "6.1.0";
	in.kernel_vr = "6.1.0-57-amd64";
	in.arch = "x86_64";
	in.config["CONFIG_X86"] = "y";
	in.guru = true;
	return in;
}

static std::string print(const Script &s)
{
	std::ostringstream os;
	print_script(s, os);
	return os.str();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const PreprocInput pp = facts();
	SourceFile file("f.stp", std::string(reinterpret_cast<const char *>(data), size));
	Diagnostics diags;
	Script script = parse(file, diags, pp);
	if (diags.has_errors())
		return 0;
	std::string first = print(script);
	SourceFile again("f2.stp", first);
	Diagnostics d2;
	Script s2 = parse(again, d2, pp);
	if (d2.has_errors() || print(s2) != first)
		std::abort(); // the canonical form must round-trip
	SemaResult r = analyze(script, diags);
	(void)r;
	std::ostringstream os;
	diags.render(os);
	return 0;
}
