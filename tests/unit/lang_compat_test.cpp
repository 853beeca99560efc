// lang_compat_test.cpp - SystemTap compatibility of the front end: the
// systemtap_v and systemtap_privilege conditions of %( %), and probe alias
// suffixes (syscall.read.return.maxactive(5)).
#include <gtest/gtest.h>

#include "frontend_helpers.h"
#include "translator/frontend/preprocess.h"
#include "translator/frontend/tapsets.h"

using namespace stap_pmu;
using stap_pmu::test::Checked;
using stap_pmu::test::first_error;

namespace {

// The script after the preprocessor (printed), or its first diagnostic as
// "line:col: severity: message".
std::string pp(const std::string &text, const PreprocInput &in = PreprocInput{})
{
	SourceFile f("t.stp", text);
	Diagnostics d;
	Script s = parse(f, d, in);
	for (const Diagnostic &g : d.all())
		return std::to_string(g.loc.line) + ":" + std::to_string(g.loc.col) + ": " +
		       (g.severity == Severity::Error ? "error: " : "warning: ") + g.message;
	std::ostringstream os;
	print_script(s, os);
	return os.str();
}

// Which branch "%( COND %? 1 %: 2 %)" takes: "1", "2", or the diagnostic.
std::string pick(const std::string &cond, const PreprocInput &in = PreprocInput{})
{
	std::string out = pp("probe begin { x = %( " + cond + " %? 1 %: 2 %) }", in);
	if (out.find("x = 1;") != std::string::npos)
		return "1";
	if (out.find("x = 2;") != std::string::npos)
		return "2";
	return out;
}

} // namespace

TEST(LangCompat, SystemtapVersionIsTheCompatibleVersion)
{
	EXPECT_STREQ(compatible_default, "4.8");
	EXPECT_EQ(PreprocInput{}.compatible, "4.8");
	EXPECT_EQ(pick("systemtap_v >= \"4.8\""), "1");
	EXPECT_EQ(pick("systemtap_v == \"4.8\""), "1");
	EXPECT_EQ(pick("systemtap_v != \"4.8\""), "2");
	EXPECT_EQ(pick("systemtap_v > \"4.8\""), "2");
	EXPECT_EQ(pick("systemtap_v < \"4.10\""), "1"); // numerically per part, not bytewise
	EXPECT_EQ(pick("systemtap_v <= \"4.7\""), "2");
	EXPECT_EQ(pick("systemtap_v >= \"2.0\" && systemtap_v < \"5\""), "1");
	EXPECT_EQ(pick("systemtap_v == \"4.*\""), "1"); // == and != with a wildcard: a glob
	EXPECT_EQ(pick("systemtap_v != \"3.*\""), "1");
	// --compatible=VERSION
	PreprocInput old;
	old.compatible = "3.3";
	EXPECT_EQ(pick("systemtap_v < \"4.0\"", old), "1");
	EXPECT_EQ(pick("systemtap_v >= \"3.3\"", old), "1");
	EXPECT_EQ(pick("systemtap_v > \"3.3\"", old), "2");
}

TEST(LangCompat, SystemtapPrivilegeIsStapdev)
{
	EXPECT_EQ(pick("systemtap_privilege == \"stapdev\""), "1");
	EXPECT_EQ(pick("systemtap_privilege != \"stapdev\""), "2");
	EXPECT_EQ(pick("systemtap_privilege == \"stapusr\""), "2");
	EXPECT_EQ(pick("systemtap_privilege != \"stapsys\""), "1");
	EXPECT_EQ(pick("systemtap_privilege == \"stapusr\" || systemtap_privilege == \"stapdev\""),
		  "1");
	// not a privilege level: compared as SystemTap does (never equal), with a warning
	EXPECT_EQ(pick("systemtap_privilege == \"root\""),
		  "1:45: warning: 'root' is not a privilege level: systemtap_privilege is "
		  "\"stapusr\", \"stapsys\" or \"stapdev\"");
}

TEST(LangCompat, ConditionErrorsAreLocated)
{
	// "probe begin { x = %( " is 21 columns: the condition starts at 22
	EXPECT_EQ(pick("systemtap_privilege >= \"stapusr\""),
		  "1:42: error: 'systemtap_privilege' is compared with == or != only");
	EXPECT_EQ(pick("systemtap_privilege == 1"),
		  "1:45: error: 'systemtap_privilege' is compared with a string literal, found '1'");
	EXPECT_EQ(pick("systemtap_v >= 4"),
		  "1:37: error: 'systemtap_v' is compared with a string literal, found '4'");
	EXPECT_EQ(pick("kernel_v >= 5"),
		  "1:34: error: 'kernel_v' is compared with a string literal, found '5'");
	EXPECT_EQ(pick("arch == 64"), "1:30: error: 'arch' is compared with a string literal, found '64'");
	EXPECT_EQ(pick("systemtap_v < \"4.*\""),
		  "1:34: error: 'systemtap_v' is compared with a wildcard by == or != only");
	EXPECT_EQ(pick("kernel_vr >= \"6.1*\""),
		  "1:32: error: 'kernel_vr' is compared with a wildcard by == or != only");
	EXPECT_EQ(pick("systemtap_version >= \"4.8\""),
		  "1:22: error: unknown name 'systemtap_version' in conditional");
	EXPECT_EQ(pick("systemtap_v"), "1:22: error: expected 'NAME OP \"value\"' in conditional");
}

TEST(LangCompat, ComponentHelpers)
{
	EXPECT_EQ(probe_point_components("kernel.function(\"a.b\").return"),
		  (std::vector<std::string>{"kernel", "function(\"a.b\")", "return"}));
	EXPECT_TRUE(probe_component_matches("func*(\"x\")", "function(\"x\")"));
	EXPECT_FALSE(probe_component_matches("function(\"y\")", "function(\"x\")"));
	EXPECT_TRUE(probe_name_prefixes("syscall.read.return.maxactive(5)", "syscall.read.return"));
	EXPECT_TRUE(probe_name_prefixes("syscall.*.return.maxactive(5)", "syscall.read"));
	EXPECT_FALSE(probe_name_prefixes("syscall.read.return", "syscall.read.return"));
	EXPECT_FALSE(probe_name_prefixes("syscall.readv.return", "syscall.read"));
}

// The one rule resolve_tapsets and the syscall-tapset closure share.
TEST(LangCompat, PointNamesAlias)
{
	EXPECT_TRUE(point_names_alias("signal.send", "signal.send"));             // itself
	EXPECT_TRUE(point_names_alias("signal.*", "signal.send"));                // a glob
	EXPECT_TRUE(point_names_alias("signal.send.maxactive(5)", "signal.send")); // a suffix
	EXPECT_TRUE(point_names_alias("sig*.send.return", "signal.send"));        // both
	EXPECT_FALSE(point_names_alias("signal.sendv", "signal.send"));
	EXPECT_FALSE(point_names_alias("signal", "signal.send"));
	EXPECT_FALSE(point_names_alias("kernel.function(\"a.b\")", "kernel.function(\"a\")"));
}

TEST(LangCompat, AliasSuffixAppendsToEachExpansion)
{
	Checked c("probe rd = kprobe.function(\"a\"), kprobe.function(\"b\") { x = 1 }\n"
		  "probe rd.return.maxactive(5) { x++ }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.instances.size(), 2u);
	for (size_t i = 0; i < 2; i++) {
		EXPECT_EQ(c.sema.instances[i].point.kind, ProbeKind::Kretprobe);
		EXPECT_EQ(c.sema.instances[i].point.maxactive, 5u);
	}
	EXPECT_EQ(c.sema.instances[0].point.name, "kprobe.function(\"a\").return.maxactive(5)");
	EXPECT_EQ(c.sema.instances[1].point.name, "kprobe.function(\"b\").return.maxactive(5)");
	// the alias's body still runs first
	EXPECT_EQ(c.sema.instances[0].body, c.sema.instances[1].body);
}

TEST(LangCompat, AliasSuffixTakesTheLongestAliasName)
{
	// p.return is an alias of its own: p.return.maxactive(2) extends it,
	// not p with .return.maxactive(2)
	Checked c("probe p = kprobe.function(\"a\") { }\n"
		  "probe p.return = kprobe.function(\"b\").return { }\n"
		  "probe p.return.maxactive(2), p.return { }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.instances.size(), 2u);
	EXPECT_EQ(c.sema.instances[0].point.name, "kprobe.function(\"b\").return.maxactive(2)");
	EXPECT_EQ(c.sema.instances[1].point.name, "kprobe.function(\"b\").return");
	// without p.return, .return is p's suffix
	Checked d("probe p = kprobe.function(\"a\") { }\nprobe p.return { }");
	ASSERT_FALSE(d.diags.has_errors()) << d.rendered();
	ASSERT_EQ(d.sema.instances.size(), 1u);
	EXPECT_EQ(d.sema.instances[0].point.name, "kprobe.function(\"a\").return");
	EXPECT_EQ(d.sema.instances[0].point.kind, ProbeKind::Kretprobe);
}

TEST(LangCompat, AliasSuffixThroughAliasesAndWildcards)
{
	// q's point p gets the suffix, which p's point gets in turn
	Checked c("probe p = kprobe.function(\"a\") { }\nprobe q = p { }\n"
		  "probe q.return.maxactive(4) { }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.instances.size(), 1u);
	EXPECT_EQ(c.sema.instances[0].point.name, "kprobe.function(\"a\").return.maxactive(4)");
	// sc.*.return.maxactive(3): every sc.X.return alias extended
	Checked w("probe sc.a = kprobe.function(\"a\") { }\n"
		  "probe sc.a.return = kprobe.function(\"a\").return { }\n"
		  "probe sc.b = kprobe.function(\"b\") { }\n"
		  "probe sc.b.return = kprobe.function(\"b\").return { }\n"
		  "probe sc.*.return.maxactive(3) { }");
	ASSERT_FALSE(w.diags.has_errors()) << w.rendered();
	ASSERT_EQ(w.sema.instances.size(), 2u);
	EXPECT_EQ(w.sema.instances[0].point.name, "kprobe.function(\"a\").return.maxactive(3)");
	EXPECT_EQ(w.sema.instances[1].point.name, "kprobe.function(\"b\").return.maxactive(3)");
	// through a wildcard, the aliases whose points do not take the suffix
	// are no matches; when none does, the pattern is an unknown point
	Checked m("probe f.a = kprobe.function(\"a\") { }\nprobe f.b = begin { }\n"
		  "probe f.*.return { }");
	ASSERT_FALSE(m.diags.has_errors()) << m.rendered();
	ASSERT_EQ(m.sema.instances.size(), 1u);
	EXPECT_EQ(m.sema.instances[0].point.name, "kprobe.function(\"a\").return");
	EXPECT_EQ(first_error("probe f.b = begin { }\nprobe f.*.return.maxactive(2) { }"),
		  "t.stp:2:7: unknown probe point 'f.*.return.maxactive(2)' [the points of the "
		  "aliases it matches do not take '.return.maxactive(2)']");
	// a wildcard matches names, it never starts a suffix
	std::string e = first_error("probe p = kprobe.function(\"a\") { }\nprobe p.* { }");
	EXPECT_EQ(e.substr(0, e.find(" [")), "t.stp:2:7: unknown probe point 'p.*'");
}

TEST(LangCompat, AliasSuffixKeepsConditionsAndOptionalPoints)
{
	// the alias point's condition and the user's both guard the body
	Checked c("probe p = kprobe.function(\"a\") if (n > 1) { }\nglobal n\n"
		  "probe p.return if (n < 5) { n++ }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.instances.size(), 1u);
	// if (!(n > 1)) next; if (!(n < 5)) next; then the bodies
	const Stmt &b = *c.sema.bodies[c.sema.instances[0].body].body;
	ASSERT_GE(b.body.size(), 2u);
	for (size_t i = 0; i < 2; i++) {
		ASSERT_EQ(b.body[i]->kind, StmtKind::If);
		ASSERT_EQ(b.body[i]->expr->text, "!");
		EXPECT_EQ(b.body[i]->expr->args[0]->text, i == 0 ? ">" : "<");
	}
	// an optional alias point that does not take the suffix is skipped
	Checked o("probe p = kprobe.function(\"a\") ?, kprobe.function(\"b\") { }\n"
		  "probe p.return { }");
	ASSERT_FALSE(o.diags.has_errors()) << o.rendered();
	ASSERT_EQ(o.sema.instances.size(), 2u);
}

TEST(LangCompat, AliasSuffixErrorsNameTheExpandedPoint)
{
	// the error is at the suffix the user wrote and names the expanded point
	EXPECT_EQ(first_error("probe p = kprobe.function(\"a\") { }\nprobe p.bogus { }"),
		  "t.stp:2:9: unexpected '.bogus' in 'kprobe.function(\"a\").bogus' "
		  "[kprobe.function(\"f\") may only be followed by .return (and .maxactive(N))]");
	EXPECT_EQ(first_error("probe p = kprobe.function(\"a\") { }\nprobe p.return.maxactive(0) { }"),
		  "t.stp:2:26: maxactive needs a number from 1 to 4096, e.g. .return.maxactive(64)");
	// begin's own error for what follows it, at the user's suffix
	EXPECT_EQ(first_error("probe p = begin { }\nprobe p.return { }"),
		  "t.stp:2:9: unexpected '.return' after 'begin'");
}
