// diagnostics_test.cpp - the rendered form of errors, warnings and hints.
#include <gtest/gtest.h>

#include "translator/frontend/diagnostics.h"

using namespace stap_pmu;

TEST(Diagnostics, ErrorWithCaretAndHint)
{
	SourceFile f("x.stp", "probe begin {\n\tn = @pmu(\"INST_RETIRD\")\n}\n");
	Diagnostics d;
	d.error({&f, 2, 11}, "unknown PMU event 'INST_RETIRD'", "did you mean 'INST_RETIRED'?");
	d.warning({&f, 1, 7}, "just a warning");
	EXPECT_TRUE(d.has_errors());
	EXPECT_EQ(d.error_count(), 1u);
	std::ostringstream os;
	d.render(os);
	EXPECT_EQ(os.str(), "x.stp:2:11: error: unknown PMU event 'INST_RETIRD'\n"
			    "    \tn = @pmu(\"INST_RETIRD\")\n"
			    "    \t         ^\n"
			    "note: did you mean 'INST_RETIRED'?\n"
			    "x.stp:1:7: warning: just a warning\n"
			    "    probe begin {\n"
			    "          ^\n");
}

TEST(Diagnostics, InputNameAndNoLocation)
{
	SourceFile f("<input>", "probe foo {}");
	Diagnostics d;
	d.error({&f, 1, 7}, "unknown probe point 'foo'");
	d.error({}, "cannot initialize libpfm4");
	std::ostringstream os;
	d.render(os);
	EXPECT_EQ(os.str(), "<input>:1:7: error: unknown probe point 'foo'\n"
			    "    probe foo {}\n"
			    "          ^\n"
			    "error: cannot initialize libpfm4\n");
}

TEST(Diagnostics, LongLinesAreCutAroundTheCaret)
{
	std::string line = std::string(1000, 'x') + "!" + std::string(1000, 'y');
	SourceFile f("l.stp", line);
	Diagnostics d;
	d.error({&f, 1, 1001}, "bad");
	std::string out = render_diagnostic(d.all()[0]);
	EXPECT_LT(out.size(), 400u);
	size_t l2 = out.find('\n') + 1, l3 = out.find('\n', l2) + 1;
	std::string src = out.substr(l2, l3 - l2), caret = out.substr(l3);
	EXPECT_EQ(src[caret.find('^')], '!');
}
