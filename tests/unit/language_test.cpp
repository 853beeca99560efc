// language_test.cpp - the grown language: canonical printing, the
// preprocessor, aliases and optional points, type inference across
// functions and arrays, warnings.
#include <gtest/gtest.h>

#include "frontend_helpers.h"
#include "translator/codegen/codegen.h"
#include "translator/frontend/lexer.h"
#include "translator/frontend/preprocess.h"

using namespace stap_pmu;
using stap_pmu::test::Checked;
using stap_pmu::test::Front;

static std::string reprinted(const std::string &text)
{
	Front f(text);
	EXPECT_FALSE(f.diags.has_errors()) << f.rendered();
	std::string once = f.printed();
	Front g(once);
	EXPECT_FALSE(g.diags.has_errors()) << once << g.rendered();
	EXPECT_EQ(g.printed(), once);
	return once;
}

TEST(Language, CanonicalFormRoundTrips)
{
	EXPECT_EQ(reprinted("probe begin { x = - -1; y = (a = 2) + 1; z = -(--w) }"),
		  "probe begin\n{\n  x = - -1;\n  y = ((a = 2) + 1);\n  z = - --w;\n}\n");
	EXPECT_EQ(reprinted("global a%[5]\nprobe begin { foreach (v- = [k, j] in a limit 3) next }"),
		  // a value sort is printed on the array
		  "global a%[5]\nprobe begin\n{\n  foreach (v = [k, j] in a- limit 3)\n    next;\n}\n");
	EXPECT_EQ(reprinted("function f:string (a:long, b) { return sprint(a) . b }\n"
			    "probe p = begin { } probe p, end? if (1) { try { } catch (m) { } }"),
		  "function f:string (a:long, b)\n{\n  return (sprint(a) . b);\n}\n"
		  "probe p = begin\n{\n}\nprobe p, end? if (1)\n{\n  try\n  {\n  }\n  catch (m)\n"
		  "  {\n  }\n}\n");
	// statements are separated so that the next one cannot glue on
	EXPECT_EQ(reprinted("probe begin { x = y\n(z)++ }"), "probe begin\n{\n  x = y(z)++;\n}\n");
	EXPECT_EQ(reprinted("probe begin { x = y; (z)++ }"), "probe begin\n{\n  x = y;\n  z++;\n}\n");
}

static std::string preprocessed(const std::string &text, const PreprocInput &in)
{
	SourceFile f("t.stp", text);
	Diagnostics d;
	Script s = parse(f, d, in);
	std::ostringstream os;
	d.render(os);
	print_script(s, os);
	return os.str();
}

TEST(Language, PreprocessorComparesVersionsNumerically)
{
	PreprocInput in;
	in.kernel_v = "5.10.0";
	in.kernel_vr = "5.10.0-28-amd64";
	in.arch = Arch::X86_64;
	in.config.set("CONFIG_HZ", "250");
	in.config.set("CONFIG_SMP", "y");
	auto pick = [&](const std::string &cond) {
		return preprocessed("probe begin { x = %( " + cond + " %? 1 %: 2 %) }", in);
	};
	EXPECT_NE(pick("kernel_v > \"5.9\"").find("x = 1;"), std::string::npos);
	EXPECT_NE(pick("kernel_v < \"5.10.1\"").find("x = 1;"), std::string::npos);
	EXPECT_NE(pick("kernel_vr == \"5.10*\" && arch == \"x86_64\"").find("x = 1;"),
		  std::string::npos);
	EXPECT_NE(pick("CONFIG_HZ >= 1000 || CONFIG_SMP != \"y\"").find("x = 2;"), std::string::npos);
	EXPECT_NE(pick("CONFIG_NOPE == \"y\"").find("x = 2;"), std::string::npos);
	// macros substitute tokens, like C's
	EXPECT_EQ(preprocessed("@define SQ(a) %( (@a * @a) %)\nprobe begin { x = @SQ(1 + 2) }", in),
		  "probe begin\n{\n  x = ((1 + (2 * 1)) + 2);\n}\n");
}

TEST(Language, CommandLineDefinesReplaceMacroBodies)
{
	PreprocInput in;
	in.defines["EV"] = "\"cycles:k\"";
	in.defines["P"] = "5000";
	in.defines["N"] = "2 * 3";
	in.defines["UNUSED"] = "1"; // only a C define: no macro of that name
	// the script's bodies are the defaults; -D NAME=VALUE's tokens replace them
	EXPECT_EQ(preprocessed("@define EV %( \"llc-misses\" %) @define P %( 1 %)\n"
			       "@define N %( 1 %) @define K %( 4 %)\n"
			       "probe perf.event(@EV).sample(@P) { x = @K * @N }",
			       in),
		  "probe perf.event(\"cycles:k\").sample(5000)\n{\n  x = ((4 * 2) * 3);\n}\n");
	// errors point at the @define: a value that does not lex, a macro with parameters
	in.defines = {{"EV", "\"open"}, {"SQ", "1"}};
	std::string out = preprocessed("@define EV %( \"x\" %)\n@define SQ(a) %( @a %)\n"
				       "probe begin { println(@EV, @SQ(2)) }",
				       in);
	EXPECT_NE(out.find("t.stp:1:9: error: -D EV=\"open does not give script tokens for macro "
			   "'EV': unterminated string literal"),
		  std::string::npos)
		<< out;
	EXPECT_NE(out.find("t.stp:2:9: error: -D SQ cannot replace macro 'SQ', which takes "
			   "parameters"),
		  std::string::npos)
		<< out;
}

TEST(Language, AliasesExpandToTheirPoints)
{
	Checked c("probe two = kprobe.function(\"a\"), kprobe.function(\"b\") { n = 1 }\n"
		  "probe two, begin { n++ }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.instances.size(), 3u);
	EXPECT_EQ(c.sema.instances[0].point.symbol, "a");
	EXPECT_EQ(c.sema.instances[1].point.symbol, "b");
	// the alias points share one combined body, begin has the plain one
	EXPECT_EQ(c.sema.instances[0].body, c.sema.instances[1].body);
	EXPECT_NE(c.sema.instances[0].body, c.sema.instances[2].body);
}

TEST(Language, OptionalAndSufficientPoints)
{
	Checked c("probe nosuch.thing?, begin!, end { }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.instances.size(), 1u); // '!' resolved: end is not tried
	EXPECT_EQ(c.sema.instances[0].point.name, "begin");
}

TEST(Language, TypesFlowThroughFunctionsAndArrays)
{
	Checked c("global a, s\n"
		  "function key(x) { return sprint(x) }\n"
		  "function get(k) { return a[k, 1] }\n"
		  "probe begin { a[key(3), 1] = get(\"x\") . \"!\"; s[key(1)] <<< 2 }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	const Symbol &a = *c.sema.globals[0];
	EXPECT_TRUE(a.array);
	ASSERT_EQ(a.keys.size(), 2u);
	EXPECT_EQ(a.keys[0], Type::String);
	EXPECT_EQ(a.keys[1], Type::Long);
	EXPECT_EQ(a.type, Type::String);
	EXPECT_EQ(c.sema.globals[1]->type, Type::Stats);
	EXPECT_EQ(c.sema.functions[0].ret, Type::String);
	EXPECT_EQ(c.sema.functions[1].locals[0]->type, Type::String);
}

TEST(Language, ScalarStatisticsNeedNoLock)
{
	Checked c("global s, n\nprobe kprobe.function(\"f\") { s <<< 1 }\n"
		  "probe kprobe.function(\"g\") { n++; if (n > 5) exit() }\n"
		  "probe end { println(@count(s), n) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	EXPECT_FALSE(c.sema.bodies[0].uses_globals); // per-CPU statistic
	EXPECT_TRUE(c.sema.bodies[1].uses_globals);  // n read in a probe: shared
}

TEST(Language, UnusedVariableWarningsAndModes)
{
	Checked c("probe begin { x = 1; y = 2; println(y) }");
	ASSERT_EQ(c.diags.all().size(), 1u) << c.rendered();
	EXPECT_EQ(c.diags.all()[0].severity, Severity::Warning);
	EXPECT_EQ(c.diags.all()[0].message, "variable 'x' is assigned but never read");

	SourceFile f("t.stp", "probe begin { x = 1 }");
	Diagnostics w;
	w.set_warning_mode(Diagnostics::WarningMode::Suppress);
	analyze(parse(f, w), w);
	EXPECT_TRUE(w.all().empty());
	Diagnostics e;
	e.set_warning_mode(Diagnostics::WarningMode::AsErrors);
	analyze(parse(f, e), e);
	EXPECT_TRUE(e.has_errors());
}

TEST(Language, GeneratedCodeUsesTheRuntimeContracts)
{
	Checked c("global a[16], w%[4], s\n"
		  "function f(n) { return n > 0 ? f(n - 1) : 0 }\n"
		  "probe begin { a[1, \"x\"] = f(2); w[1] = 1; s <<< 1; print(@hist_log(s))\n"
		  "  foreach ([k, j] in a- limit 2) delete w }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	CodegenInput in;
	in.script = &c.script;
	in.sema = &c.sema;
	in.module_name = "m";
	std::string code = generate_c(in);
	for (const char *want : {"#define STP_HAVE_FRAMES 1", "#define STP_HAVE_MAPS 1",
				 ".cap = 16,", ".wrap = true,", "static DEFINE_PER_CPU(struct stp_pcs_s, g_s);",
				 "stp_map_sort(c, &g_a, 0, -1)", "stp_nest_enter(c)", "stp_hist_print(",
				 "stp_actions(c, ", "#define STP_HIST_MAX 129",
				 // one long key: the lookup without a struct stp_key
				 "stp_map_lref_n1(c, &g_w, ((s64)1LL))", "stp_map_lref(c, &g_a, (&(struct stp_key)"})
		EXPECT_NE(code.find(want), std::string::npos) << want;
}

namespace {
std::string c_of(const char *text)
{
	Checked c(text);
	EXPECT_FALSE(c.diags.has_errors()) << c.rendered();
	CodegenInput in;
	in.script = &c.script;
	in.sema = &c.sema;
	in.module_name = "m";
	return generate_c(in);
}
} // namespace

// Entry probes through ftrace ask for full pt_regs (the dearer trampoline)
// unless nothing in the module may read the probed registers.
TEST(Language, NoEntryRegsOnlyWhenNoBodyReadsRegisters)
{
	const std::string no_regs = "#define STP_NO_ENTRY_REGS 1";
	EXPECT_NE(c_of("global n\nprobe begin { n++; printf(\"%d %d\\n\", pid(), n) }")
			  .find(no_regs),
		  std::string::npos);
	for (const char *reads : {"probe begin { print_backtrace() }",
				  "probe begin { println(backtrace()) }",
				  "probe begin { println(user_mode()) }",
				  "function f() { println(caller()) }\nprobe begin { f() }"})
		EXPECT_EQ(c_of(reads).find(no_regs), std::string::npos) << reads;
}

// The ftrace entry handlers inline each entry probe's body: the dispatch
// names the entry probes (KPROBE at offset 0) and no other; one entry
// probe also gets stp_entry_one() (no site search); a script without
// entry probes, or with more than 8, gets neither.
TEST(Language, EntryDispatchNamesTheEntryProbesBodies)
{
	const std::string one = "#define STP_ENTRY_ONE 1";
	const std::string run = "stp_run_probe_body(&stp_probes[";
	std::string code = c_of("global n, s\nprobe begin { n = 0 }\n"
				"probe kprobe.function(\"f\") { n++ }\n"
				"probe kprobe.function(\"f\").return { s <<< 1 }\n"
				"probe kprobe.function(\"g\"), kprobe.function(\"h\") { s <<< 2 }");
	EXPECT_NE(code.find("#define STP_ENTRY_DISPATCH 1"), std::string::npos) << code;
	EXPECT_EQ(code.find(one), std::string::npos) << code;
	// probes 1, 3 and 4 (g and h share one body); not begin, not the return
	EXPECT_NE(code.find("\tcase 1:\n\t\t" + run + "1], stp_probe_1, NULL,"), std::string::npos)
		<< code;
	EXPECT_NE(code.find("\tcase 3:\n\t\t" + run + "3], stp_probe_3, NULL,"), std::string::npos)
		<< code;
	EXPECT_NE(code.find("\tcase 4:\n\t\t" + run + "4], stp_probe_3, NULL,"), std::string::npos)
		<< code;
	EXPECT_EQ(code.find("case 0:"), std::string::npos) << code;
	EXPECT_EQ(code.find("case 2:"), std::string::npos) << code;
	EXPECT_EQ(code.find("stp_entry_one(void)"), std::string::npos) << code;

	code = c_of("global n\nprobe kprobe.function(\"f\").return { n-- }\n"
		    "probe kprobe.function(\"f\") { n++ }");
	EXPECT_NE(code.find(one), std::string::npos) << code;
	EXPECT_NE(code.find("stp_entry_one(void)\n{\n\t" + run + "1], stp_probe_1, NULL,"),
		  std::string::npos)
		<< code;

	code = c_of("global n\nprobe kprobe.function(\"f\").return { n++ }\nprobe begin { n = 1 }");
	EXPECT_EQ(code.find("STP_ENTRY_DISPATCH"), std::string::npos) << code;
	EXPECT_EQ(code.find("stp_entry_dispatch"), std::string::npos) << code;

	// each inlined copy costs the build and the module: 8 entry probes
	// at most, more call their bodies through p->body
	std::string eight = "global n\n", nine;
	for (char f = 'a'; f < 'i'; f++)
		eight += std::string("probe kprobe.function(\"") + f + "\") { n++ }\n";
	nine = eight + "probe kprobe.function(\"i\") { n++ }\n";
	code = c_of(eight.c_str());
	EXPECT_NE(code.find("\tcase 7:\n"), std::string::npos) << code;
	code = c_of(nine.c_str());
	EXPECT_EQ(code.find("STP_ENTRY_DISPATCH"), std::string::npos) << code;
	EXPECT_EQ(code.find("stp_entry_dispatch"), std::string::npos) << code;
}

// Code only some kprobe scripts need is compiled only into theirs: the
// kretprobe entry handler (values saved at entry) and the module functions'
// ftrace sites.
TEST(Language, KprobeExtrasOnlyWhereTheScriptNeedsThem)
{
	const std::string entry = "#define STP_HAVE_KRET_ENTRY 1", sites = "#define STP_HAVE_MODULE_SITES 1";
	std::string code = c_of("global n\nprobe kprobe.function(\"f\") { n++ }\n"
				"probe kprobe.function(\"f\").return { n-- }");
	EXPECT_EQ(code.find(entry), std::string::npos) << code;
	EXPECT_EQ(code.find(sites), std::string::npos) << code;
	code = c_of("global t\nprobe kprobe.function(\"f\").return { t = gettimeofday_ns() - @entry(gettimeofday_ns()) }");
	EXPECT_NE(code.find(entry), std::string::npos) << code;
	EXPECT_EQ(code.find(sites), std::string::npos) << code;
	code = c_of("global n\nprobe kprobe.module(\"ext4\").function(\"ext4_file_open\") { n++ }");
	EXPECT_NE(code.find(sites), std::string::npos) << code;
	EXPECT_NE(code.find(".symbol = \"ext4:ext4_file_open\""), std::string::npos) << code;
	EXPECT_EQ(code.find(entry), std::string::npos) << code;
}

// The probe kinds a table holds, for the runtime to drop the registration
// code of the others (stp_kind_compiled): each kind once, sorted by name.
TEST(Language, ProbeKindsNameTheTablesKinds)
{
	std::string code = c_of("global n\nprobe timer.s(1) { n++ }\nprobe timer.ms(10) { n++ }\n"
				"probe end { println(n) }");
	EXPECT_NE(code.find("#define STP_PROBE_KINDS ((1U << STP_PROBE_END) | (1U << STP_PROBE_TIMER))\n"),
		  std::string::npos)
		<< code;
	code = c_of("global n\nprobe kprobe.function(\"f\").return { n++ }\nprobe begin { n = 1 }\n"
		    "probe never { n = 2 }");
	EXPECT_NE(code.find("#define STP_PROBE_KINDS ((1U << STP_PROBE_BEGIN) | (1U << STP_PROBE_KRETPROBE) | "
			    "(1U << STP_PROBE_NEVER))\n"),
		  std::string::npos)
		<< code;
}

// MAXACTION in a body without loops or calls: its statements bound the
// count, so the accounting is compiled only for a lower MAXACTION; a loop
// keeps it on every pass.
TEST(Language, StraightLineBodiesCountActionsOnlyBelowTheirSize)
{
	std::string code = c_of("global n\nprobe begin { n++; if (n > 1) { n = 2; n = 3 } else n = 4 }");
	EXPECT_NE(code.find("if (STP_MAXACTION < 5) {"), std::string::npos) << code;
	EXPECT_NE(code.find("\t\tif (unlikely(stp_actions(c, 2)))"), std::string::npos) << code;
	code = c_of("global n\nprobe begin { n++; while (n < 3) n++ }");
	EXPECT_EQ(code.find("STP_MAXACTION <"), std::string::npos) << code;
	EXPECT_NE(code.find("\tif (unlikely(stp_actions(c, 2)))"), std::string::npos) << code;
}

TEST(Language, EmbeddedFunctionsNeverCalledAreNotEmitted)
{
	SourceFile f("t.stp", "function unused:long() %{ not C at all %}\n"
			      "function used:long() %{ STAP_RETURN(7); %}\n"
			      "function helper:long() %{ STAP_RETURN(1); %}\n"
			      "function never_called() { return helper() }\n"
			      "probe begin { println(used()) }");
	PreprocInput pp;
	pp.guru = true;
	Diagnostics d;
	Script s = parse(f, d, pp);
	SemaResult sema = analyze(s, d);
	ASSERT_FALSE(d.has_errors());
	CodegenInput in;
	in.script = &s;
	in.sema = &sema;
	in.module_name = "m";
	in.guru = true;
	std::string code = generate_c(in);
	EXPECT_EQ(code.find("stp_fn_unused"), std::string::npos);
	EXPECT_EQ(code.find("not C at all"), std::string::npos);
	EXPECT_NE(code.find("static __maybe_unused void stp_fn_used("), std::string::npos);
	// called from a script function (even one nothing calls): emitted
	EXPECT_NE(code.find("static __maybe_unused void stp_fn_helper("), std::string::npos);
}
