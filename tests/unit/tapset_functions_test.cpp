// tapset_functions_test.cpp - SystemTap's tapset functions as builtins: names
// with several arities, the form a call picks, refused functions, types.
#include <gtest/gtest.h>

#include <string>

#include "frontend_helpers.h"
#include "translator/sema/builtins.h"

using namespace stap_pmu;
using stap_pmu::test::Checked;
using stap_pmu::test::first_error;

TEST(TapsetFunctions, PicksTheFormByArgumentCount)
{
	const Builtin *one = find_builtin("kernel_string", 1);
	const Builtin *two = find_builtin("kernel_string", 2);
	ASSERT_NE(one, nullptr);
	ASSERT_NE(two, nullptr);
	EXPECT_NE(one, two);
	EXPECT_TRUE(one->may_fail);   // a fault is an error
	EXPECT_FALSE(two->may_fail);  // a fault returns err_msg
	EXPECT_EQ(find_builtin("kernel_string", 3), nullptr);
	EXPECT_EQ(find_builtin("kernel_string"), one);
	const Builtin *n3 = find_builtin("user_string_n", 3);
	ASSERT_NE(n3, nullptr);
	EXPECT_EQ(n3->params.back(), Type::String);
	EXPECT_EQ(find_builtin("user_string_n", 1), nullptr);
}

TEST(TapsetFunctions, ArityListsEveryForm)
{
	EXPECT_EQ(builtin_arities("kernel_string"), "1 or 2");
	EXPECT_EQ(builtin_arities("user_string_n"), "2 or 3");
	EXPECT_EQ(builtin_arities("text_strn"), "3");
	EXPECT_EQ(builtin_arities("task_current"), "0");
	EXPECT_EQ(builtin_arities("ctime"), "0 or 1");
}

TEST(TapsetFunctions, EveryUserReaderHasAnErrorForm)
{
	for (const char *n : {"user_char", "user_short", "user_ushort", "user_int", "user_long",
			      "user_int8", "user_uint8", "user_int16", "user_uint16", "user_int32",
			      "user_uint32", "user_int64", "user_uint64"}) {
		const Builtin *quiet = find_builtin(n, 1);
		const Builtin *loud = find_builtin(std::string(n) + "_error", 1);
		ASSERT_NE(quiet, nullptr) << n;
		ASSERT_NE(loud, nullptr) << n;
		EXPECT_FALSE(quiet->may_fail) << n;
		EXPECT_TRUE(loud->may_fail) << n;
		EXPECT_EQ(loud->ret, Type::Long) << n;
	}
}

TEST(TapsetFunctions, TypesFlowFromTheFunctions)
{
	Checked c("global who, st\n"
		  "probe kprobe.function(\"vfs_read\") { t = task_current();"
		  " who = task_execname(task_parent(t)); st = task_state(t);"
		  " s = user_string(register(\"rsi\"), \"?\") . tokenize(\"a b\", \" \") }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	EXPECT_EQ(c.sema.globals[0]->type, Type::String);
	EXPECT_EQ(c.sema.globals[1]->type, Type::Long);
}

TEST(TapsetFunctions, WrongCallsAreLocated)
{
	EXPECT_EQ(first_error("probe begin { println(kernel_string(1, \"x\", 3)) }"),
		  "t.stp:1:23: 'kernel_string' takes 1 or 2 argument(s), 3 given");
	EXPECT_EQ(first_error("probe begin { x = user_string(1, 2) }"),
		  "t.stp:1:34: argument 2 of 'user_string' must be string, not long");
	EXPECT_EQ(first_error("probe begin { print_ubacktrace(1) }"),
		  "t.stp:1:15: 'print_ubacktrace' takes 0 argument(s), 1 given");
	EXPECT_EQ(first_error("probe begin { switch_file() }"),
		  "t.stp:1:15: 'switch_file' is not available: output files are not rotated "
		  "(stap-pmu has no -S)");
	EXPECT_EQ(first_error("function log(x) { return x } probe begin { log(1) }"),
		  "t.stp:1:1: function 'log' has the name of a builtin");
}
