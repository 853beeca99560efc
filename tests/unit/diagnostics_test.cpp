// diagnostics_test.cpp - the rendered form of errors, warnings and hints.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "translator/frontend/diagnostics.h"
#include "translator/frontend/source.h"

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

TEST(SourceFile, CheckScriptSizeFailsOverTheLimit)
{
	EXPECT_TRUE(check_script_size("<input>", max_script_bytes).ok());
	Status over = check_script_size("<input>", max_script_bytes + 1);
	ASSERT_FALSE(over.ok());
	EXPECT_EQ(over.error().what, "<input>: script is 4194305 bytes, more than the limit of 4 MiB");
	EXPECT_EQ(over.error().hint, "");
}

TEST(SourceFile, ReadSourceFileSaysWhyItCannot)
{
	auto dir = read_source_file("/");
	ASSERT_FALSE(dir);
	EXPECT_EQ(dir.error().what, "/: is a directory, not a script");
	auto missing = read_source_file("/nonexistent/x.stp");
	ASSERT_FALSE(missing);
	EXPECT_EQ(missing.error().what, "/nonexistent/x.stp: cannot open: No such file or directory");

	std::string path = testing::TempDir() + "read_source_test.stp";
	std::ofstream(path) << "probe begin { exit() }\n";
	auto ok = read_source_file(path);
	ASSERT_TRUE(ok) << ok.error().what;
	EXPECT_EQ((*ok)->name(), path);
	EXPECT_EQ((*ok)->line(1), "probe begin { exit() }");
	std::ofstream(path, std::ios::binary) << std::string("a\0b", 3);
	auto bin = read_source_file(path);
	ASSERT_FALSE(bin);
	EXPECT_EQ(bin.error().what, path + ": not a script (binary file)");
	std::remove(path.c_str());
}
