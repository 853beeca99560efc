// fuzz_frontend.cpp - libFuzzer target over the translator: preprocess,
// parse, the -p1 round trip (the printed form must parse back and print
// identically), the semantic pass, the PMU pass (libpfm4) and C generation.
// Built instrumented (-fsanitize=fuzzer,address,undefined) in the clang
// build tree the build step makes (tests/fuzz/CMakeLists.txt); run-fuzz.sh
// runs it, then compiles the C of inputs that translate with kbuild
// (tests/corpus/generated-c.sh).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "translator/frontend/parser.h"
#include "translator/driver/translate_passes.h"
#include "translator/frontend/printer.h"

using namespace stap_pmu;

static ParseOptions facts()
{
	ParseOptions o;
	o.pp.kernel_v = "6.1.0";
	o.pp.kernel_vr = "6.1.0-57-amd64";
	o.pp.arch = Arch::X86_64;
	o.pp.config.set("CONFIG_X86", "y");
	o.pp.guru = true;
	return o;
}

static std::string print(const Script &s)
{
	std::ostringstream os;
	print_script(s, os);
	return os.str();
}

// STAP_FUZZ_KEEP_TRANSLATED=DIR: inputs that translate are copied there (by
// content hash), for run-fuzz.sh to compile their C.
static void keep_translated(const uint8_t *data, size_t size)
{
	static const char *dir = std::getenv("STAP_FUZZ_KEEP_TRANSLATED");
	if (!dir || !*dir)
		return;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	char name[32];
	std::snprintf(name, sizeof(name), "/%016llx.stp", static_cast<unsigned long long>(h));
	std::ofstream(std::string(dir) + name, std::ios::binary)
		.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ParseOptions opts = facts();
	Diagnostics diags;
	Parsed p = parse_pass(std::make_unique<SourceFile>(
				      "f.stp", std::string(reinterpret_cast<const char *>(data), size)),
			      opts, diags);
	if (diags.has_errors())
		return 0;
	std::string first = print(p.script);
	SourceFile again("f2.stp", first);
	Diagnostics d2;
	Script s2 = parse(again, d2, opts.pp);
	if (d2.has_errors() || print(s2) != first)
		std::abort(); // the canonical form must round-trip
	TranslateOptions to;
	to.pmu_targets = {"all"};
	to.module_name = "stp_fuzz";
	Elaborated e = elaborate_pass(p, to, nullptr, diags);
	if (!diags.has_errors()) {
		Translated t = translate_pass(p, e, to);
		if (t.c_source.empty())
			std::abort(); // a script that passes semantics must have C
		// embedded C (%{ %}) is the input's own C, copied as written: only
		// C that is all the translator's must compile; and the command line
		// refuses a file with a NUL byte (a binary file), so there is no C
		// of such an input to compile
		std::string_view text(reinterpret_cast<const char *>(data), size);
		if (text.find("%{") == std::string_view::npos &&
		    text.find('\0') == std::string_view::npos)
			keep_translated(data, size);
	}
	std::ostringstream os;
	diags.render(os);
	return 0;
}
