// kernel_facts_test.cpp - pass 2 against a fake target kernel: the facts are
// an input of elaborate_pass (no globals, no DWARF, no kernel tree), and
// with none, kernel.function, kernel.trace and @cast fail as they do for a
// kernel whose debugging information is missing.
#include <gtest/gtest.h>

#include "frontend_helpers.h"
#include "translator/driver/translate_passes.h"
#include "translator/probes/kernel_facts.h"

using namespace stap_pmu;
using stap_pmu::test::Checked;
using stap_pmu::test::first_error;

namespace {

KernelParam param(const std::string &name, const std::string &type, int arg,
		  const std::string &abi = "")
{
	return KernelParam{name, type, arg, abi};
}

// A kernel with vfs_read(), the tracepoint sched:sched_switch and struct
// task_struct's pid at offset 1234.
class FakeFacts : public KernelFacts {
public:
	FakeFacts()
	{
		vfs_read_.name = "vfs_read";
		vfs_read_.file = "fs/read_write.c";
		vfs_read_.line = 450;
		vfs_read_.ret_type = "ssize_t";
		vfs_read_.ret_scalar = true;
		vfs_read_.params = {param("file", "struct file*", 0), param("buf", "char*", 1),
				    param("count", "size_t", 2), param("pos", "loff_t*", 3)};
		auto sw = std::make_shared<KernelFunction>();
		sw->name = "sched_switch";
		sw->tracepoint = true;
		sw->ret_type = "void";
		sw->params = {param("preempt", "bool", 0, "bool"),
			      param("prev", "struct task_struct*", 1, "void *"),
			      param("next", "struct task_struct*", 2, "void *"),
			      param("prev_state", "unsigned int", 3, "u32")};
		sched_.name = "sched";
		sched_.header = "trace/events/sched.h";
		sched_.events.push_back({"sched_switch", sw, ""});
	}

	Result<std::vector<KernelFunction>> functions(const std::string &module,
						      const std::string &pattern) const override
	{
		if (module.empty() && pattern == "vfs_read")
			return std::vector<KernelFunction>{vfs_read_};
		return fail("no function matches '" + pattern + "' in the fake kernel");
	}

	Result<TargetAccess> target_access(const KernelFunction &f, const std::string &spelling,
					   bool) const override
	{
		if (spelling.find("->") != std::string::npos)
			return fail("the fake kernel has no types");
		auto acc = parameter_access(f, spelling.substr(1));
		if (acc)
			acc->size = 8;
		return acc;
	}

	CastAccess cast_access(const std::string &module, const std::string &type,
			       const std::vector<std::string> &members) const override
	{
		if (module == "kernel" && type == "struct task_struct" && members.size() == 1 &&
		    members[0] == "pid") {
			TargetAccess acc;
			acc.offsets = {1234};
			acc.size = 4;
			acc.is_signed = true;
			acc.deref_last = true;
			return acc;
		}
		CastError e;
		e.part = CastError::Member;
		e.msg = "no member '" + members[0] + "' in " + type;
		return e;
	}

	TracepointLookup tracepoints(const std::string &sys) const override
	{
		if (sys == "sched")
			return &sched_;
		return TracepointError{fail("no tracepoint subsystem '" + sys + "'"), true};
	}

	// a symbol table with __x64_sys_getpid and the __init start_kernel
	SymbolCheck check_symbol(const std::string &module, const std::string &name) const override
	{
		SymbolCheck c;
		c.known = module.empty();
		c.found = name == "__x64_sys_getpid";
		if (name == "start_kernel")
			c.why_not = "it is __init code";
		else if (!c.found)
			c.nearest = {"__x64_sys_getpid"};
		return c;
	}

	// register_kprobe at 0x1000, __x64_sys_getpid at 0x400 (an alias of
	// __do_sys_getpid, first there) and vfs_read at 0x2340 in the fake
	// symbol table (each name once)
	std::optional<SymbolDelta> symbol_delta(const std::string &name) const override
	{
		if (name == "__x64_sys_getpid")
			return SymbolDelta{-0xc00, "__do_sys_getpid"};
		if (name == "vfs_read")
			return SymbolDelta{0x1340, "vfs_read"};
		return std::nullopt;
	}

private:
	KernelFunction vfs_read_;
	TracepointSubsystem sched_;
};

// SystemTap's line forms: N, N-M, '*'; anything else is a bad line.
TEST(KernelFacts, FunctionPatternLines)
{
	auto one = parse_function_pattern("f@a.c:12");
	ASSERT_TRUE(one.ok());
	EXPECT_EQ(one->line, 12);
	EXPECT_FALSE(one->many_lines());
	auto all = parse_function_pattern("f@fs/proc*.c:*");
	ASSERT_TRUE(all.ok());
	EXPECT_EQ(all->file_glob, "fs/proc*.c");
	EXPECT_TRUE(all->any_line);
	auto range = parse_function_pattern("f@a.c:10-20");
	ASSERT_TRUE(range.ok());
	EXPECT_EQ(range->line, 10);
	EXPECT_EQ(range->line_end, 20);
	EXPECT_TRUE(range->many_lines());
	for (const char *bad : {"f@a.c:", "f@a.c:x", "f@a.c:20-10", "f@a.c:1-", "f@a.c:-3"}) {
		auto b = parse_function_pattern(bad);
		ASSERT_FALSE(b.ok()) << bad;
		EXPECT_NE(b.error().what.find("bad line number"), std::string::npos) << bad;
	}
	EXPECT_NE(many_lines_unsupported("f@a.c:*").what.find("not supported yet"),
		  std::string::npos);
}

TEST(KernelFacts, FunctionProbeReadsTheFakesPrototype)
{
	FakeFacts facts;
	Checked c("probe kernel.function(\"vfs_read\") { println($count) }", &facts);
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.instances.size(), 1u);
	const ResolvedPoint &p = c.sema.instances[0].point;
	EXPECT_EQ(p.kind, ProbeKind::Kprobe);
	EXPECT_EQ(p.symbol, "vfs_read");
	EXPECT_EQ(p.name, "kernel.function(\"vfs_read\")");
	ASSERT_TRUE(p.func);
	EXPECT_EQ(p.func->params.size(), 4u);
	ASSERT_EQ(p.tvars.size(), 1u);
	EXPECT_EQ(p.tvars[0].base, TargetAccess::Arg);
	EXPECT_EQ(p.tvars[0].arg, 2);
}

TEST(KernelFacts, MisspelledTargetVariableIsLocated)
{
	FakeFacts facts;
	// the message DWARF gives (parameter_access), at the variable
	EXPECT_EQ(first_error("probe kernel.function(\"vfs_read\") {\n  println($cuont)\n}", &facts),
		  "t.stp:2:11: '$cuont' is not a parameter of vfs_read() "
		  "(parameters: $file $buf $count $pos)");
	EXPECT_EQ(first_error("probe kernel.function(\"vfs_reed\") {}", &facts),
		  "t.stp:1:23: no function matches 'vfs_reed' in the fake kernel");
}

TEST(KernelFacts, TracepointArgumentsFromTheFake)
{
	FakeFacts facts;
	Checked c("probe kernel.trace(\"sched:sched_switch\") { println($next) }", &facts);
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.instances.size(), 1u);
	const ResolvedPoint &p = c.sema.instances[0].point;
	EXPECT_EQ(p.kind, ProbeKind::Tracepoint);
	EXPECT_EQ(p.tracepoint, "sched_switch");
	ASSERT_EQ(p.tvars.size(), 1u);
	EXPECT_EQ(p.tvars[0].base, TargetAccess::TpArg);
	EXPECT_EQ(p.tvars[0].arg, 2);
	EXPECT_EQ(first_error("probe kernel.trace(\"sched:sched_swich\") {}", &facts),
		  "t.stp:1:27: no tracepoint 'sched_swich' in trace/events/sched.h "
		  "[did you mean 'sched_switch'?]");
	EXPECT_EQ(first_error("probe kernel.trace(\"schd:sched_switch\") {}", &facts),
		  "t.stp:1:21: no tracepoint subsystem 'schd'");
}

// Passes 1-3 as the driver runs them, with the facts given to pass 2.
TEST(KernelFacts, GeneratedCodeHasTheTargetVariableTable)
{
	FakeFacts facts;
	Diagnostics diags;
	Parsed parsed = parse_pass(
		std::make_unique<SourceFile>(
			"t.stp", "probe kernel.trace(\"sched:sched_switch\") { println($next) }\n"
				 "probe begin { println(@cast(0, \"struct task_struct\")->pid) }"),
		diags);
	TranslateOptions opts;
	opts.module_name = "m";
	Elaborated e = elaborate_pass(parsed, opts, &facts, diags);
	ASSERT_FALSE(diags.has_errors());
	std::string c = translate_pass(parsed, e, opts).c_source;
	for (const char *want :
	     {"static const struct stp_tvar stp_tvars_0[] = {\n"
	      "\t{ .base = STP_TVAR_TPARG, .arg = 2, .size = 8, .is_signed = 0, .nderef = 0, "
	      ".deref_last = 0, .at_entry = 0, .off = { } },\n};\n",
	      "static void stp_tp_0(void *__data, bool a0, void *a1, void *a2, u32 a3)\n",
	      ".tp_name = \"sched_switch\",",
	      ".tp_argnames = \"preempt\\000prev\\000next\\000prev_state\\000\",",
	      ".size = 4, .is_signed = 1, .nderef = 1, .deref_last = 1, .off = { 1234 } };"})
		EXPECT_NE(c.find(want), std::string::npos) << want;
}

// $$return in .return probes; "return=0x..." of a scalar, hashed for a
// pointer, "" for void (the probe's ret_shown).
TEST(KernelFacts, DollarDollarReturn)
{
	FakeFacts facts;
	Diagnostics diags;
	Parsed parsed = parse_pass(
		std::make_unique<SourceFile>(
			"t.stp", "probe kernel.function(\"vfs_read\").return { println($$return) }\n"
				 "probe begin { println(&@cast(0, \"struct task_struct\")->pid) }"),
		diags);
	TranslateOptions opts;
	opts.module_name = "m";
	Elaborated e = elaborate_pass(parsed, opts, &facts, diags);
	ASSERT_FALSE(diags.has_errors());
	std::string c = translate_pass(parsed, e, opts).c_source;
	EXPECT_NE(c.find("stp_return_str(c, "), std::string::npos);
	EXPECT_NE(c.find(".ret_shown = 1,"), std::string::npos);
	// &@cast(...)->pid: the member's address, no read of the value
	EXPECT_NE(c.find(".nderef = 1, .deref_last = 0, .off = { 1234 } };"), std::string::npos);
	EXPECT_EQ(first_error("probe kernel.function(\"vfs_read\") { println($$return) }", &facts),
		  "t.stp:1:45: '$$return' in 'kernel.function(\"vfs_read\")', which is not a "
		  ".return probe of a function with a prototype "
		  "[use it in kernel.function(\"f\").return or module(\"m\").function(\"f\").return]");
}

// With the target's symbol table, kprobe.function names are checked at
// pass 2: a misspelling gets the closest names, __init code is refused.
TEST(KernelFacts, KprobeSymbolsCheckedAtPassTwo)
{
	FakeFacts facts;
	Checked ok("probe kprobe.function(\"__x64_sys_getpid\") {}", &facts);
	EXPECT_FALSE(ok.diags.has_errors()) << ok.rendered();
	EXPECT_EQ(first_error("probe kprobe.function(\"__x64_sys_getpdi\") {}", &facts),
		  "t.stp:1:23: no kernel symbol '__x64_sys_getpdi' "
		  "[did you mean '__x64_sys_getpid'?]");
	EXPECT_EQ(first_error("probe kprobe.function(\"start_kernel\") {}", &facts),
		  "t.stp:1:23: cannot probe 'start_kernel': it is __init code");
	// modules: the fake knows nothing, the kernel checks at load
	Checked mod("probe kprobe.module(\"ext4\").function(\"nosuch\") {}", &facts);
	EXPECT_FALSE(mod.diags.has_errors()) << mod.rendered();
}

// Kernel function probes carry their symbol's distance to register_kprobe
// into the probe table (runtime/stp_ftrace.h places entry probes by it);
// module symbols and symbols the table lacks have none.
TEST(KernelFacts, KprobesCarryTheSymbolDelta)
{
	FakeFacts facts;
	Diagnostics diags;
	Parsed parsed = parse_pass(
		std::make_unique<SourceFile>(
			"t.stp", "probe kprobe.function(\"__x64_sys_getpid\") {}\n"
				 "probe kernel.function(\"vfs_read\").return {}\n"
				 "probe kprobe.module(\"ext4\").function(\"ext4_sync_fs\") {}\n"),
		diags);
	TranslateOptions opts;
	opts.module_name = "m";
	Elaborated e = elaborate_pass(parsed, opts, &facts, diags);
	ASSERT_FALSE(diags.has_errors());
	ASSERT_EQ(e.sema.instances.size(), 3u);
	EXPECT_EQ(e.sema.instances[0].point.sym_delta,
		  std::optional<SymbolDelta>(SymbolDelta{-0xc00, "__do_sys_getpid"}));
	EXPECT_EQ(e.sema.instances[1].point.sym_delta,
		  std::optional<SymbolDelta>(SymbolDelta{0x1340, "vfs_read"}));
	EXPECT_FALSE(e.sema.instances[2].point.sym_delta);
	std::string c = translate_pass(parsed, e, opts).c_source;
	EXPECT_NE(c.find(".symbol = \"__x64_sys_getpid\",\n\t\t.sym_delta = -3072LL,\n"
			 "\t\t.has_sym_delta = 1,\n\t\t.sym_shown = \"__do_sys_getpid\",\n"),
		  std::string::npos);
	// vfs_read: kallsyms shows it under its own name
	const std::string vfs = ".sym_delta = 4928LL,\n\t\t.has_sym_delta = 1,\n";
	size_t at = c.find(vfs);
	ASSERT_NE(at, std::string::npos);
	EXPECT_NE(c.compare(at + vfs.size(), 13, "\t\t.sym_shown "), 0);
	EXPECT_EQ(c.find(".sym_delta", c.find(".symbol = \"ext4:ext4_sync_fs\"")), std::string::npos);
}

// No facts: what a kernel without DWARF or build tree answers.
TEST(KernelFacts, NoFactsFailLikeAKernelWithoutDebuggingInformation)
{
	EXPECT_EQ(first_error("probe kernel.function(\"vfs_read\") {}"),
		  "t.stp:1:23: kernel.function needs the kernel's DWARF: "
		  "/usr/lib/debug/boot/vmlinux- not found [give a debug vmlinux with --vmlinux FILE "
		  "(package linux-image--dbg), or probe by symbol with kprobe.function(\"name\"), "
		  "which needs no DWARF]");
	NoKernelFacts none("6.1.0-test");
	EXPECT_EQ(first_error("probe module(\"ext4\").function(\"f*\") {}", &none),
		  "t.stp:1:31: module(\"ext4\") needs ext4.ko with DWARF: not found in "
		  "/lib/modules/6.1.0-test [give its directory with --module-dir DIR, or probe by "
		  "symbol with kprobe.module(\"ext4\").function(\"name\"), which needs no DWARF]");
	EXPECT_EQ(first_error("probe kernel.function(\"f@a.c:x\") {}", &none),
		  "t.stp:1:23: bad line number 'x' in 'f@a.c:x' "
		  "[a line is a number N, a range N-M or '*' (every line)]");
	EXPECT_EQ(first_error("probe kernel.trace(\"sched:sched_switch\") {}"),
		  "t.stp:1:20: kernel.trace needs the target kernel's build tree: "
		  "no target kernel configured");
	EXPECT_EQ(first_error("probe begin { println(@cast(0, \"struct task_struct\")->pid) }", &none),
		  "t.stp:1:23: @cast(..., \"kernel\") needs the kernel's DWARF: "
		  "/usr/lib/debug/boot/vmlinux-6.1.0-test not found [give a debug vmlinux with "
		  "--vmlinux FILE (package linux-image-6.1.0-test-dbg), or name a module whose DWARF "
		  "defines the type: @cast(p, \"struct NAME\", \"MODULE\")]");
	EXPECT_EQ(first_error("probe begin { println(@cast(0, \"struct 9x\", \"kernel\")->pid) }"),
		  "t.stp:1:32: cannot use 'struct 9x' as @cast's type [name a struct, union or "
		  "typedef: \"struct NAME\", \"union NAME\" or \"NAME\"]");
	EXPECT_EQ(first_error("probe begin { println(@cast(0, \"struct s\", \"m:\")->x) }", &none),
		  "t.stp:1:44: empty module name in @cast's module 'm:' [name the module whose DWARF "
		  "defines the type (\"kernel\" for vmlinux)]");
}

} // namespace

TEST(KernelFacts, TargetSpellingStepsAndIndexes)
{
	using V = std::vector<std::string>;
	EXPECT_EQ(split_target_spelling("$p"), V{"p"});
	EXPECT_EQ(split_target_spelling("$p->a->b"), (V{"p", "a", "b"}));
	EXPECT_EQ(split_target_spelling("$p[]->a[2][]->b"), (V{"p", "[]", "a", "[2]", "[]", "b"}));
	EXPECT_EQ(steps_text({"a", "[2]", "[]", "b"}, 4), "->a[2][...]->b");
	EXPECT_EQ(steps_text({"a", "[2]", "[]", "b"}, 2), "->a[2]");
}
