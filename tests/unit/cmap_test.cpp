// cmap_test.cpp - script locations in the generated C (translator/cmap.h):
// markers, embedded C copied line for line, compiler errors parsed from a
// kbuild log and reported at the script's locations.
#include <gtest/gtest.h>

#include <algorithm>

#include "translator/codegen/cmap.h"
#include "translator/codegen/codegen.h"
#include "translator/frontend/parser.h"
#include "translator/sema/sema.h"

using namespace stap_pmu;

namespace {

TEST(Cmap, MarkersAndEmbeddedText)
{
	SourceFile f("dir/t.stp", "probe begin {\n\t%{ int x;\n\t  x = 1; %}\n}\n");
	SourceLoc stmt{&f, 2, 2};
	EXPECT_EQ(cmap::marker(stmt), "/* @stp dir/t.stp:2:2 */");
	EXPECT_EQ(cmap::end_marker(), "/* @stp - */");
	// the text after "%{" (column 2): 3 spaces so that it starts at column 4
	EXPECT_EQ(cmap::embedded(stmt, " int x;\n\t  x = 1; "),
		  "/* @stp-embedded 2 dir/t.stp:2:2 */\n    int x;\n\t  x = 1; ");
	// a name with spaces
	SourceFile spaced("my script.stp", "");
	cmap::Map ms(cmap::embedded({&spaced, 2, 1}, "a\nb") + "\n");
	ASSERT_TRUE(ms.locate(3, 1));
	EXPECT_EQ(ms.locate(3, 1)->file, "my script.stp");
	EXPECT_EQ(ms.locate(3, 1)->line, 3u);
	// a name that could close the comment is escaped, and read back
	SourceFile odd("a*/b%.stp", "");
	EXPECT_EQ(cmap::marker({&odd, 1, 1}), "/* @stp a%2A/b%25.stp:1:1 */");
	cmap::Map m("x\n" + cmap::marker({&odd, 7, 3}) + "\ny\n");
	ASSERT_TRUE(m.locate(3, 1));
	EXPECT_EQ(m.locate(3, 1)->file, "a*/b%.stp");
}

TEST(Cmap, LocateFindsTheNearestMarkerBefore)
{
	SourceFile f("t.stp", "");
	std::string c = "#include \"stp_runtime.h\"\n"           // 1
			"static void p(void)\n{\n"                  // 2-3
			+ cmap::marker({&f, 4, 1}) + "\n"           // 4
			"\tint a;\n"                                // 5
			"\t" + cmap::marker({&f, 5, 2}) + "\n"      // 6
			"\tx = ((long)(" + cmap::embedded({&f, 5, 6}, " foo +\n\t bar ") +
			"\n));\n"                                   // 7-10
			"}\n" + cmap::end_marker() + "\n"           // 11-12
			"static struct table t;\n";                 // 13
	cmap::Map m(c);
	EXPECT_EQ(m.size(), 4u);
	EXPECT_FALSE(m.locate(1, 1)); // the runtime's include: no script code
	auto at = [&](unsigned l, unsigned col) {
		auto p = m.locate(l, col);
		return p ? p->file + ":" + std::to_string(p->line) + ":" + std::to_string(p->col) +
				   (p->embedded ? " embedded" : "")
			 : std::string("none");
	};
	EXPECT_EQ(at(5, 2), "t.stp:4:1");
	EXPECT_EQ(at(6, 2), "t.stp:4:1"); // before the marker on its own line
	EXPECT_EQ(at(7, 3), "t.stp:5:2"); // the statement, before the inline marker
	// the embedded text keeps the script's lines and columns
	EXPECT_EQ(at(8, 9), "t.stp:5:9 embedded");
	EXPECT_EQ(at(9, 3), "t.stp:6:3 embedded");
	// what follows the text belongs to its "%{"
	EXPECT_EQ(at(10, 1), "t.stp:5:6 embedded");
	EXPECT_EQ(at(11, 1), "t.stp:5:6 embedded");
	EXPECT_EQ(at(13, 1), "none"); // after the end marker
	// a marker inside embedded text is the user's text, not a marker
	cmap::Map m2(cmap::embedded({&f, 1, 1}, "/* @stp x.stp:9:9 */\nbad") + "\n");
	EXPECT_EQ(m2.size(), 1u);
}

TEST(Cmap, CompilerErrorsFromAKbuildLog)
{
	std::string log =
		"  CC [M]  /tmp/w/mod.o\n"
		"/tmp/w/mod.c: In function 'stp_probe_0':\n"
		"/tmp/w/mod.c:12:5: error: unknown type name \xe2\x80\x98this\xe2\x80\x99\n"
		"   12 |     this is not C\n"
		"/tmp/w/mod.c:12:13: warning: unused variable 'is'\n"
		"In file included from /work/runtime/stp_runtime.h:30,\n"
		"                 from /tmp/w/mod.c:16:\n"
		"/work/runtime/stp_map.h: In function 'stp_map_get':\n"
		"/work/runtime/stp_map.h:40:9: error: 'oops' undeclared\n"
		"/work/runtime/stp_x.h:3:20: error: expected ';'\n"
		"/tmp/w/mod.c:50:3: note: in expansion of macro 'STP_X'\n"
		"/tmp/w/mod.c:60: error: no column\n"
		"/tmp/w/other_mod.c:1:1: error: another file\n"
		"make[2]: *** [scripts/Makefile.build:250: /tmp/w/mod.o] Error 1\n";
	auto errs = cmap::compiler_errors(log, "mod.c");
	ASSERT_EQ(errs.size(), 5u);
	EXPECT_EQ(errs[0].text, "unknown type name 'this'"); // ASCII quotes
	EXPECT_TRUE(errs[0].in_c);
	EXPECT_EQ(errs[0].c_line, 12u);
	EXPECT_EQ(errs[0].c_col, 5u);
	// a runtime header included from line 16 of the generated C
	EXPECT_EQ(errs[1].file, "/work/runtime/stp_map.h");
	EXPECT_FALSE(errs[1].in_c);
	EXPECT_FALSE(errs[1].macro);
	EXPECT_EQ(errs[1].c_line, 16u);
	// a header's macro expanded at line 50 of the generated C
	EXPECT_TRUE(errs[2].macro);
	EXPECT_EQ(errs[2].c_line, 50u);
	EXPECT_EQ(errs[2].c_col, 3u);
	EXPECT_EQ(errs[3].c_line, 60u);
	EXPECT_EQ(errs[3].c_col, 0u);
	// "other_mod.c" is not "mod.c"
	EXPECT_FALSE(errs[4].in_c);
	EXPECT_EQ(errs[4].c_line, 0u);
}

std::string c_with_embedded(const SourceFile &f)
{
	return "#define MAXACTION oops\n"                                   // 1
	       "#include \"stp_runtime.h\"\n"                               // 2
	       + cmap::marker({&f, 2, 1}) + "\n"                            // 3
	       "\t{\n" + cmap::embedded({&f, 3, 2}, " this is not C ") + "\n" // 4-6
	       "\t}\n"                                                      // 7
	       + cmap::marker({&f, 4, 2}) + "\n"                            // 8
	       "\tx = 1;\n"                                                 // 9
	       + cmap::end_marker() + "\n";                                 // 10
}

TEST(Cmap, FailureAtTheEmbeddedCsScriptLine)
{
	SourceFile f("t.stp", "global x\nprobe begin {\n\t%{ this is not C %}\n\tx = 1\n}\n");
	std::string log = "/tmp/w/m.c:6:5: error: unknown type name 'this'\n"
			  "/tmp/w/m.c:9:2: error: consequence\n"
			  "/tmp/w/m.c:9:2: error: consequence\n"
			  "/work/runtime/stp_module.h:22:13: error: invalid storage class\n";
	auto r = cmap::explain_failure(log, c_with_embedded(f), "/tmp/w/m.c", {&f}, {});
	EXPECT_EQ(r.mapped, 1u);
	EXPECT_EQ(r.internal, 0u);
	// only the embedded C's error: the others are its consequences
	// (the repeated one is counted once)
	EXPECT_EQ(r.text, "t.stp:3:5: error: the generated C does not compile: unknown type name 'this'\n"
			  "    \t%{ this is not C %}\n"
			  "    \t   ^\n"
			  "note: generated C: /tmp/w/m.c:6:5\n"
			  "note: 2 more compiler errors in make's output, probably consequences of these\n");
}

TEST(Cmap, FailureInTranslatorCodeRuntimeAndDefines)
{
	SourceFile f("t.stp", "global x\nprobe begin {\n\t%{ ok %}\n\tx = 1\n}\n");
	std::string log = "/tmp/w/m.c:9:4: error: bad generated code\n"
			  "/work/runtime/stp_module.h:22:13: error: invalid storage class\n"
			  "/tmp/w/m.c:1:19: error: 'oops' undeclared\n"
			  "/work/runtime/stp_output.h:36:2: error: #error \"STP_BUFSIZE is too small\"\n";
	auto r = cmap::explain_failure(log, c_with_embedded(f), "/tmp/w/m.c", {&f},
				       {{"MAXACTION", "oops"}});
	EXPECT_EQ(r.mapped, 1u);
	EXPECT_EQ(r.internal, 1u);
	EXPECT_EQ(r.text,
		  // C stap-pmu generated for a statement
		  "t.stp:4:2: error: the C generated for this does not compile: bad generated code\n"
		  "    \tx = 1\n"
		  "    \t^\n"
		  "note: generated C: /tmp/w/m.c:9:4; this is an internal error of stap-pmu (or a -D "
		  "value that is not valid C)\n"
		  // no marker: the runtime
		  "stap-pmu: error: internal error: the generated C does not compile: invalid storage "
		  "class\n"
		  "note: at /work/runtime/stp_module.h:22:13, in C that stap-pmu generates or includes "
		  "for every script; this is an internal error of stap-pmu (or a -D value that is not "
		  "valid C)\n"
		  // on the #define of a -D option
		  "stap-pmu: error: -D MAXACTION=oops: the generated C does not compile: 'oops' "
		  "undeclared\n"
		  "note: the module's C uses the value of MAXACTION as C (/tmp/w/m.c:1:19)\n"
		  // the runtime's own check
		  "stap-pmu: error: the module cannot be built: STP_BUFSIZE is too small\n"
		  "note: checked at /work/runtime/stp_output.h:36:2\n");
}

TEST(Cmap, FailureWithoutCompilerErrors)
{
	SourceFile f("t.stp", "");
	std::string log = "  MODPOST /tmp/w/Module.symvers\n"
			  "ERROR: modpost: \"foo\" [/tmp/w/m.ko] undefined!\n"
			  "make[2]: *** [scripts/Makefile.modpost:126: /tmp/w/Module.symvers] Error 1\n";
	auto r = cmap::explain_failure(log, "", "/tmp/w/m.c", {&f}, {});
	EXPECT_EQ(r.text, "stap-pmu: error: kbuild: ERROR: modpost: \"foo\" [/tmp/w/m.ko] undefined!\n");
}

// The generated C of a script carries a marker before each statement and
// its embedded C at the script's lines: every line of the embedded text maps
// back to the script line it came from.
TEST(Cmap, GeneratedCMapsBack)
{
	std::string text = "%{\n#include <linux/jiffies.h>\n%}\n"          // 1-3
			   "function f:long (a:long) %{\n"                  // 4
			   "\tSTAP_RETURN(STAP_ARG_a + 1);\n%}\n"           // 5-6
			   "probe begin {\n"                                // 7
			   "\tx = f(1) + %{ jiffies %}\n"                   // 8
			   "\t%{ (void)0;\n"                                // 9
			   "\t  (void)1; %}\n"                              // 10
			   "\tprintln(x)\n}\n";                             // 11-12
	SourceFile f("g.stp", text);
	Diagnostics diags;
	PreprocInput pp;
	pp.guru = true;
	Script script = parse(f, diags, pp);
	ASSERT_FALSE(diags.has_errors());
	SemaResult sema = analyze(script, diags);
	ASSERT_FALSE(diags.has_errors());
	CodegenInput in;
	in.script = &script;
	in.sema = &sema;
	in.module_name = "g";
	in.guru = true;
	std::string c = generate_c(in);
	cmap::Map m(c);
	// each of these script lines, found in the C, maps back to itself
	std::vector<std::pair<std::string, unsigned>> lines = {
		{"#include <linux/jiffies.h>", 2}, {"\tSTAP_RETURN(STAP_ARG_a + 1);", 5},
		{" jiffies ", 8}, {" (void)0;", 9}, {"\t  (void)1; ", 10}};
	for (const auto &[want, script_line] : lines) {
		size_t at = c.find(want);
		ASSERT_NE(at, std::string::npos) << want;
		unsigned cl = 1 + static_cast<unsigned>(std::count(c.begin(), c.begin() + at, '\n'));
		unsigned col = 1 + static_cast<unsigned>(at - (c.rfind('\n', at) + 1));
		auto pos = m.locate(cl, col);
		ASSERT_TRUE(pos) << want;
		EXPECT_EQ(pos->file, "g.stp");
		EXPECT_EQ(pos->line, script_line) << want;
		EXPECT_TRUE(pos->embedded);
		// the column is the script's too
		std::string_view sl = f.line(script_line);
		EXPECT_EQ(sl.substr(pos->col - 1, want.size()), want) << want;
	}
	// the statement "println(x)": its marker, then its C on the next line
	size_t at = c.find("/* @stp g.stp:11:2 */");
	ASSERT_NE(at, std::string::npos);
	unsigned cl = 2 + static_cast<unsigned>(std::count(c.begin(), c.begin() + at, '\n'));
	auto pos = m.locate(cl, 2);
	ASSERT_TRUE(pos);
	EXPECT_EQ(pos->line, 11u);
	EXPECT_EQ(pos->col, 2u);
	EXPECT_FALSE(pos->embedded);
}

} // namespace
