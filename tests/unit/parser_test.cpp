// parser_test.cpp - grouping of operators (seen through -p1 printing),
// probe points, and syntax errors with exact text and location.
#include <gtest/gtest.h>

#include "frontend_helpers.h"

using namespace stap_pmu;
using stap_pmu::test::Front;

static std::string body_of(const std::string &stmt)
{
	Front f("probe begin { " + stmt + " }");
	EXPECT_FALSE(f.diags.has_errors()) << f.rendered();
	std::string p = f.printed();
	// "probe begin\n{\n  <stmt>;\n}\n"
	size_t a = p.find("{\n  ") + 4;
	return p.substr(a, p.rfind(";\n}") - a);
}

TEST(Parser, Precedence)
{
	EXPECT_EQ(body_of("x = 1 + 2 * 3"), "x = (1 + (2 * 3))");
	EXPECT_EQ(body_of("x = 1 - 2 - 3"), "x = ((1 - 2) - 3)");
	EXPECT_EQ(body_of("x = a < b && c != d || e"), "x = (((a < b) && (c != d)) || e)");
	EXPECT_EQ(body_of("x = -a * !b"), "x = (-a * !b)");
	EXPECT_EQ(body_of("s = \"a\" . t . \"b\""), "s = ((\"a\" . t) . \"b\")");
	EXPECT_EQ(body_of("x = y = 3"), "x = y = 3");
	EXPECT_EQ(body_of("x += (1 + 2) * 3"), "x += ((1 + 2) * 3)");
	EXPECT_EQ(body_of("n++"), "n++");
	EXPECT_EQ(body_of("++n"), "++n");
	EXPECT_EQ(body_of("s <<< @pmu(\"cycles\") - t"), "s <<< (@pmu(\"cycles\") - t)");
	EXPECT_EQ(body_of("x = a ? b : c + 1"), "x = (a ? b : (c + 1))");
	EXPECT_EQ(body_of("printf(\"%d %s\\n\", pid(), execname())"),
		  "printf(\"%d %s\\n\", pid(), execname())");
}

// A postfix ++ ending a line and a prefix ++ starting the next are two
// statements, as in SystemTap, not (x++)++ followed by y.
TEST(Parser, PostfixThenPrefixIncrementAreTwoStatements)
{
	Front f("probe begin { x++\n++y\nz--\n--w }");
	EXPECT_FALSE(f.diags.has_errors()) << f.rendered();
	EXPECT_EQ(f.printed(), "probe begin\n{\n  x++;\n  ++y;\n  z--;\n  --w;\n}\n");
}

TEST(Parser, ProbesAndGlobals)
{
	Front f("global n, s = \"x\", k = -3\n"
		"probe kprobe.function(\"__x64_sys_getpid\").return, timer.ms(10) { n++; }\n"
		"probe end { if (n > 1) printf(\"%d\\n\", n) else { exit() } }");
	ASSERT_FALSE(f.diags.has_errors()) << f.rendered();
	EXPECT_EQ(f.printed(),
		  "global n\nglobal s = \"x\"\nglobal k = -3\n"
		  "probe kprobe.function(\"__x64_sys_getpid\").return, timer.ms(10)\n{\n  n++;\n}\n"
		  "probe end\n{\n  if ((n > 1))\n    printf(\"%d\\n\", n);\n  else\n  {\n    exit();\n  }\n}\n");
}

TEST(Parser, SyntaxErrorsWithCaret)
{
	Front f("probe begin {\n  x = (1 + \n}\n");
	EXPECT_EQ(f.rendered(), "t.stp:3:1: error: expected an expression, found '}'\n"
				"    }\n"
				"    ^\n");
}

TEST(Parser, ErrorsFromSeveralStatementsAndProbes)
{
	Front f("probe begin { x = ; y = 2 }\nprobe end { printf(\"a\" }\nfoo\n");
	ASSERT_EQ(f.diags.all().size(), 3u) << f.rendered();
	EXPECT_EQ(f.diags.all()[0].loc.str(), "t.stp:1:19");
	EXPECT_EQ(f.diags.all()[0].message, "expected an expression, found ';'");
	EXPECT_EQ(f.diags.all()[1].loc.str(), "t.stp:2:24");
	EXPECT_EQ(f.diags.all()[1].message, "expected ')' after function arguments, found '}'");
	EXPECT_EQ(f.diags.all()[2].loc.str(), "t.stp:3:1");
	EXPECT_EQ(f.diags.all()[2].message,
		  "expected 'probe', 'global' or 'function' at top level, found 'foo'");
}

TEST(Parser, MissingBraceAndProbeBody)
{
	EXPECT_EQ(Front("probe begin { x = 1").diags.all().at(0).message,
		  "unterminated block: '{' has no matching '}'");
	Front f("probe begin x = 1");
	EXPECT_EQ(f.diags.all().at(0).message, "expected '{' to start the probe body, found 'x'");
	EXPECT_EQ(f.diags.all().at(0).loc.str(), "t.stp:1:13");
}

TEST(Parser, DeepNestingIsAnErrorNotACrash)
{
	std::string deep = "probe begin { x = " + std::string(10000, '(') + "1" +
			   std::string(10000, ')') + " }";
	Front f(deep);
	ASSERT_EQ(f.diags.all().size(), 1u);
	EXPECT_EQ(f.diags.all()[0].message, "nesting too deep (more than 256 levels)");
}
