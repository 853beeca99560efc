// process_probe_test.cpp - process("PATH") probe points and their target
// variables at pass 2, against a fake user-space program: the provider's
// forms and canonical names, the facts' errors at the argument they are
// about, $vars, $return, @entry, $$parms and SDT markers' $argN.
#include <fnmatch.h>

#include <gtest/gtest.h>

#include "frontend_helpers.h"
#include "translator/driver/translate_passes.h"
#include "translator/driver/target_programs.h"
#include "translator/probes/process_facts.h"

using namespace stap_pmu;

namespace {

// /usr/bin/prog: main(argc, argv) and work(n) with DWARF in prog.c, quiet()
// known from its ELF symbol only, markers myapp:start (two arguments,
// a semaphore), myapp:stop (none) and myapp:odd (one the facts could not
// parse), and a PLT entry for malloc.
// /lib/libfoo.so is a library with foo(). Other names are not found.
class FakeProcess : public ProcessFacts {
public:
	Result<std::string> resolve_path(const std::string &name) const override
	{
		if (name == "prog" || name == "/usr/bin/prog")
			return std::string("/usr/bin/prog");
		if (name == "/lib/libfoo.so")
			return name;
		return fail("cannot find '" + name + "'", "give the program's path");
	}

	Result<std::vector<UserFunction>> functions(const std::string &path,
						    const std::string &pattern,
						    bool call) const override
	{
		auto pat = parse_function_pattern(pattern);
		if (!pat)
			return pat.error();
		std::vector<UserFunction> out;
		for (UserFunction f : all(path)) {
			if (fnmatch(pat->glob.c_str(), f.fn.name.c_str(), 0) != 0)
				continue;
			if (call)
				f.vaddr = f.offset = f.vaddr - 4;
			if (pat->line) {
				if (!f.has_dwarf)
					return fail("'" + pattern + "' needs DWARF");
				f.fn.offset = 8;
				f.fn.line = pat->line;
				f.vaddr = f.offset = f.vaddr + 8;
			}
			out.push_back(f);
		}
		if (out.empty())
			return fail("no function matches '" + pattern + "' in " + path,
				    "did you mean 'work'?");
		return out;
	}

	Result<TargetAccess> target_access(const UserFunction &f, const std::string &spelling,
					   bool in_return) const override
	{
		TargetAccess a;
		a.base = TargetAccess::Loc;
		a.user = true;
		a.is_signed = true;
		if (spelling == "$return" && in_return) {
			a.loc = Location{Location::Reg, 0, 0};
			return a;
		}
		for (size_t i = 0; i < f.fn.params.size(); i++)
			if (spelling == "$" + f.fn.params[i].name) {
				a.loc = Location{Location::Reg, i == 0 ? 5 : 4, 0};
				return a;
			}
		if (spelling == "$total" && f.fn.name == "work") { // a local on the stack
			a.loc = Location{Location::Mem, 6, -24};
			return a;
		}
		return fail("no parameter or local '" + spelling.substr(1) + "' in " + f.fn.name);
	}

	std::vector<KernelParam> locals(const UserFunction &f) const override
	{
		if (f.fn.name == "work")
			return {{"total", "long int", -1, ""}};
		return {};
	}

	Result<std::vector<SdtMark>> marks(const std::string &path, const std::string &provider,
					   const std::string &name_glob) const override
	{
		std::vector<SdtMark> out;
		for (const SdtMark &m : marks_)
			if (path == m.path && (provider.empty() || provider == m.provider) &&
			    fnmatch(name_glob.c_str(), m.name.c_str(), 0) == 0)
				out.push_back(m);
		return out;
	}

	Result<std::vector<UserFunction>> plt(const std::string &path,
					      const std::string &glob) const override
	{
		if (path != "/usr/bin/prog" || fnmatch(glob.c_str(), "malloc", 0) != 0)
			return fail("no PLT entry matches '" + glob + "' in " + path);
		UserFunction f;
		f.fn.name = "malloc";
		f.path = path;
		f.vaddr = f.offset = 0x1030;
		return std::vector<UserFunction>{f};
	}

	FakeProcess()
	{
		SdtMark start;
		start.provider = "myapp";
		start.name = "start";
		start.path = "/usr/bin/prog";
		start.vaddr = start.offset = 0x1180;
		start.semaphore_offset = 0x4010;
		start.arg_text = {"-4@%edi", "8@-16(%rbp)"};
		TargetAccess a1, a2;
		a1.base = a2.base = TargetAccess::Loc;
		a1.user = a2.user = true;
		a1.loc = Location{Location::Reg, 5, 0};
		a1.size = 4;
		a2.loc = Location{Location::Mem, 6, -16};
		a2.deref_last = true;
		start.args = {a1, a2};
		SdtMark stop = start;
		stop.name = "stop";
		stop.vaddr = stop.offset = 0x11a0;
		stop.semaphore_offset = 0;
		stop.arg_text.clear();
		stop.args.clear();
		SdtMark odd = stop;
		odd.name = "odd";
		odd.arg_text = {"8@weird"};
		odd.args = {TargetAccess{}};
		odd.args[0].size = 0; // not understood
		marks_ = {start, stop, odd};
	}

private:
	static UserFunction fn(const std::string &path, const std::string &name, int line,
			       uint64_t vaddr, bool dwarf, std::vector<KernelParam> params)
	{
		UserFunction f;
		f.fn.name = name;
		f.fn.module = path;
		f.fn.file = dwarf ? "prog.c" : "";
		f.fn.line = line;
		f.fn.ret_type = name == "work" ? "long" : "int";
		f.fn.ret_scalar = true;
		f.fn.params = std::move(params);
		f.path = path;
		f.vaddr = f.offset = vaddr;
		f.has_dwarf = dwarf;
		f.after_prologue = dwarf;
		return f;
	}

	static std::vector<UserFunction> all(const std::string &path)
	{
		if (path == "/lib/libfoo.so")
			return {fn(path, "foo", 3, 0x500, true, {})};
		return {fn(path, "main", 10, 0x1140, true,
			   {{"argc", "int", 0, ""}, {"argv", "char**", 1, ""}}),
			fn(path, "quiet", 0, 0x1200, false, {}),
			fn(path, "work", 20, 0x1160, true, {{"n", "long", 0, ""}})};
	}

	std::vector<SdtMark> marks_;
};

struct Checked : test::Front {
	explicit Checked(std::string text, bool with_facts = true) : Front(std::move(text))
	{
		if (!diags.has_errors())
			sema = analyze(script, nullptr, with_facts ? &facts : nullptr, diags);
	}
	FakeProcess facts;
	SemaResult sema;
};

std::string first_error(const std::string &text, bool with_facts = true)
{
	Checked c(text, with_facts);
	for (const Diagnostic &d : c.diags.all())
		if (d.severity == Severity::Error)
			return d.loc.str() + ": " + d.message + (d.hint.empty() ? "" : " [" + d.hint + "]");
	return "no error";
}

} // namespace

TEST(ProcessProbes, FunctionProbeReadsAParameter)
{
	Checked c("probe process(\"prog\").function(\"work\") { println($n) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.instances.size(), 1u);
	const ResolvedPoint &p = c.sema.instances[0].point;
	EXPECT_EQ(p.kind, ProbeKind::Uprobe);
	EXPECT_EQ(p.name, "process(\"/usr/bin/prog\").function(\"work@prog.c:20\")");
	EXPECT_EQ(p.path, "/usr/bin/prog");
	EXPECT_EQ(p.uoffset, 0x1160u);
	EXPECT_EQ(p.uvaddr, 0x1160u);
	ASSERT_TRUE(p.ufunc);
	ASSERT_TRUE(p.func); // the prototype, for $$parms and -L
	EXPECT_EQ(p.func->name, "work");
	ASSERT_EQ(p.tvars.size(), 1u);
	EXPECT_EQ(p.tvars[0].base, TargetAccess::Loc);
	EXPECT_TRUE(p.tvars[0].user);
	EXPECT_EQ(p.tvars[0].loc.reg, 5);
	EXPECT_EQ(c.sema.bodies[0].tvars, std::vector<std::string>{"$n"});
}

TEST(ProcessProbes, CallAndReturnProbeTheEntry)
{
	Checked c("probe process(\"/usr/bin/prog\").function(\"work\").call { println($total) }\n"
		  "probe process(\"prog\").function(\"work\").return {"
		  " println($return - @entry($n)) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.instances.size(), 2u);
	const ResolvedPoint &call = c.sema.instances[0].point;
	EXPECT_EQ(call.name, "process(\"/usr/bin/prog\").function(\"work@prog.c:20\").call");
	EXPECT_EQ(call.uoffset, 0x115cu);
	EXPECT_EQ(call.tvars[0].loc.kind, Location::Mem);
	const ResolvedPoint &ret = c.sema.instances[1].point;
	EXPECT_EQ(ret.kind, ProbeKind::Uretprobe);
	EXPECT_EQ(ret.name, "process(\"/usr/bin/prog\").function(\"work@prog.c:20\").return");
	ASSERT_EQ(ret.tvars.size(), 2u);
	EXPECT_EQ(ret.tvars[0].loc.reg, 0);
	EXPECT_FALSE(ret.tvars[0].at_entry);
	EXPECT_TRUE(ret.tvars[1].at_entry);
}

TEST(ProcessProbes, WildcardsStatementsLibrariesAndPlt)
{
	Checked c("probe process(\"prog\").function(\"*\") { }\n"
		  "probe process(\"prog\").statement(\"work@prog.c:22\") { println($n) }\n"
		  "probe process(\"prog\").library(\"/lib/libfoo.so\").function(\"foo\") { }\n"
		  "probe process(\"prog\").plt(\"mal*\").return { }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	auto &in = c.sema.instances;
	ASSERT_EQ(in.size(), 6u);
	EXPECT_EQ(in[0].point.name, "process(\"/usr/bin/prog\").function(\"main@prog.c:10\")");
	EXPECT_EQ(in[1].point.name, "process(\"/usr/bin/prog\").function(\"quiet\")");
	EXPECT_FALSE(in[1].point.func); // an ELF symbol only
	EXPECT_EQ(in[2].point.name, "process(\"/usr/bin/prog\").function(\"work@prog.c:20\")");
	EXPECT_EQ(in[3].point.name, "process(\"/usr/bin/prog\").statement(\"work@prog.c:22\")");
	EXPECT_EQ(in[3].point.uoffset, 0x1168u);
	EXPECT_EQ(in[4].point.name, "process(\"/lib/libfoo.so\").function(\"foo@prog.c:3\")");
	EXPECT_EQ(in[4].point.path, "/lib/libfoo.so");
	EXPECT_EQ(in[5].point.kind, ProbeKind::Uretprobe);
	EXPECT_EQ(in[5].point.name, "process(\"/usr/bin/prog\").plt(\"malloc\").return");
}

TEST(ProcessProbes, BeginAndEnd)
{
	Checked c("probe process.begin, process.end, process(\"prog\").begin,"
		  " process(\"prog\").end { println(pid()) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	auto &in = c.sema.instances;
	ASSERT_EQ(in.size(), 4u);
	EXPECT_EQ(in[0].point.kind, ProbeKind::ProcessBegin);
	EXPECT_EQ(in[0].point.name, "process.begin");
	EXPECT_EQ(in[0].point.path, "");
	EXPECT_EQ(in[1].point.kind, ProbeKind::ProcessEnd);
	EXPECT_EQ(in[2].point.name, "process(\"/usr/bin/prog\").begin");
	EXPECT_EQ(in[2].point.path, "/usr/bin/prog");
	EXPECT_EQ(in[3].point.kind, ProbeKind::ProcessEnd);
}

TEST(ProcessProbes, MarkersAndTheirArguments)
{
	Checked c("probe process(\"prog\").mark(\"start\") { println($arg1 + $arg2) }\n"
		  "probe process(\"prog\").provider(\"myapp\").mark(\"st*\") { println($$parms) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	auto &in = c.sema.instances;
	ASSERT_EQ(in.size(), 3u);
	const ResolvedPoint &p = in[0].point;
	EXPECT_EQ(p.kind, ProbeKind::Uprobe);
	EXPECT_EQ(p.name, "process(\"/usr/bin/prog\").provider(\"myapp\").mark(\"start\")");
	EXPECT_EQ(p.uoffset, 0x1180u);
	EXPECT_EQ(p.semaphore, 0x4010u);
	ASSERT_TRUE(p.mark);
	ASSERT_EQ(p.tvars.size(), 2u);
	EXPECT_EQ(p.tvars[0].size, 4u);
	EXPECT_EQ(p.tvars[1].loc.kind, Location::Mem);
	EXPECT_EQ(in[2].point.name, "process(\"/usr/bin/prog\").provider(\"myapp\").mark(\"stop\")");
	ASSERT_EQ(in[1].point.parms.size(), 2u);
	EXPECT_EQ(in[1].point.parms[1].first, "arg2");
	EXPECT_TRUE(in[2].point.parms.empty());
}

TEST(ProcessProbes, VarsAddTheLocals)
{
	Checked c("probe process(\"prog\").function(\"work\") { println($$vars) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	const ResolvedPoint &p = c.sema.instances[0].point;
	ASSERT_EQ(p.parms.size(), 2u);
	EXPECT_EQ(p.parms[0].first, "n");
	EXPECT_EQ(p.parms[1].first, "total");
	ASSERT_TRUE(p.parms[1].second);
	EXPECT_EQ(p.parms[1].second->loc.kind, Location::Mem);
}

TEST(ProcessProbes, ParmsAndDefined)
{
	Checked c("probe process(\"prog\").function(\"main\") { println($$parms);"
		  " println(@defined($argc) ? 1 : 2); println(@defined($nope) ? 3 : 4) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	const ResolvedPoint &p = c.sema.instances[0].point;
	ASSERT_EQ(p.parms.size(), 2u);
	EXPECT_EQ(p.parms[0].first, "argc");
	ASSERT_TRUE(p.parms[1].second);
	EXPECT_EQ(p.parms[1].second->loc.reg, 4);
	std::vector<int64_t> defined;
	for (auto &[e, v] : c.sema.const_of)
		defined.push_back(v);
	std::sort(defined.begin(), defined.end());
	EXPECT_EQ(defined, (std::vector<int64_t>{0, 1}));
}

TEST(ProcessProbes, PointErrors)
{
	EXPECT_EQ(first_error("probe process(\"nosuch\").function(\"f\") { }"),
		  "t.stp:1:15: cannot find 'nosuch' [give the program's path]");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"wrk\") { }"),
		  "t.stp:1:32: no function matches 'wrk' in /usr/bin/prog [did you mean 'work'?]");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work\").inline { }"),
		  "t.stp:1:40: '.inline' probes of user functions are not supported: an inlined "
		  "copy has no entry to put a uprobe on [probe the functions it is inlined into, "
		  "or use .call for its out-of-line copy]");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work\").return.maxactive(4) { }"),
		  "t.stp:1:47: '.maxactive' is for kernel .return probes [uretprobes have no limit "
		  "of instances in flight: drop it]");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work\").callx { }"),
		  "t.stp:1:40: unexpected '.callx' in 'process(\"prog\").function(\"work\").callx' "
		  "[process(\"PATH\").function(\"f\") may be followed by .call or .return]");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work\").call.return { }"),
		  "t.stp:1:45: unexpected '.return' in "
		  "'process(\"prog\").function(\"work\").call.return'");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work@prog.c:22\").return { }"),
		  "t.stp:1:32: a line probe ('work@prog.c:22') cannot be .return "
		  "[use process(\"PATH\").statement(\"func@file:line\")]");
	EXPECT_EQ(first_error("probe process(\"prog\").function { }"),
		  "t.stp:1:23: 'function' needs a name in quotes, e.g. function(\"main\")");
	EXPECT_EQ(first_error("probe process(1234).function(\"f\") { }"),
		  "t.stp:1:15: process(PID) is not supported [name the program, "
		  "process(\"PATH\"), and limit the probes to one process tree with -x PID]");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"f\") { }", false),
		  "t.stp:1:7: process probes need the ELF and DWARF information of user-space "
		  "programs, which is not available here");
	EXPECT_EQ(first_error("probe process.start { }"),
		  "t.stp:1:15: expected process(\"PATH\").PROBE, process.begin or process.end in "
		  "'process.start' [process(\"PATH\") may be followed by .function(\"f\"), "
		  ".statement(\"f@file:line\"), .mark(\"name\"), .provider(\"p\").mark(\"name\"), "
		  ".plt(\"name\"), .library(\"/path\"), .begin or .end]");
	EXPECT_EQ(first_error("probe process(\"prog\") { }"),
		  "t.stp:1:7: expected a probe after 'process(\"prog\")' [process(\"PATH\") may be "
		  "followed by .function(\"f\"), .statement(\"f@file:line\"), .mark(\"name\"), "
		  ".provider(\"p\").mark(\"name\"), .plt(\"name\"), .library(\"/path\"), .begin or .end]");
	EXPECT_EQ(first_error("probe process(\"prog\").syscall { }"),
		  "t.stp:1:23: unexpected '.syscall' in 'process(\"prog\").syscall' [process(\"PATH\") "
		  "may be followed by .function(\"f\"), .statement(\"f@file:line\"), .mark(\"name\"), "
		  ".provider(\"p\").mark(\"name\"), .plt(\"name\"), .library(\"/path\"), .begin or .end]");
	EXPECT_EQ(first_error("probe process(\"prog\").begin.x { }"),
		  "t.stp:1:29: unexpected '.x' in 'process(\"prog\").begin.x'");
}

TEST(ProcessProbes, StatementMarkLibraryAndPltErrors)
{
	EXPECT_EQ(first_error("probe process(\"prog\").statement(\"work@prog.c\") { }"),
		  "t.stp:1:33: statement(\"work@prog.c\") needs a line [e.g. "
		  "statement(\"work@prog.c:12\"); for a function's entry use .function]");
	EXPECT_EQ(first_error("probe process(\"prog\").statement(\"quiet@*:3\") { }"),
		  "t.stp:1:33: 'quiet@*:3' needs DWARF");
	EXPECT_EQ(first_error("probe process(\"prog\").mark(\"nope\") { }"),
		  "t.stp:1:28: no SDT marker matches 'nope' in /usr/bin/prog [stap-pmu -l "
		  "'process(\"/usr/bin/prog\").mark(\"*\")' lists its markers]");
	EXPECT_EQ(first_error("probe process(\"prog\").provider(\"other\").mark(\"start\") { }"),
		  "t.stp:1:46: no SDT marker of provider 'other' matches 'start' in /usr/bin/prog "
		  "[stap-pmu -l 'process(\"/usr/bin/prog\").mark(\"*\")' lists its markers]");
	EXPECT_EQ(first_error("probe process(\"prog\").provider(\"myapp\").function(\"f\") { }"),
		  "t.stp:1:41: expected .mark(\"name\") after .provider(\"myapp\")");
	EXPECT_EQ(first_error("probe process(\"prog\").provider(\"myapp\") { }"),
		  "t.stp:1:23: expected .mark(\"name\") after .provider(\"myapp\")");
	EXPECT_EQ(first_error("probe process(\"prog\").library(\"libfoo.so\").function(\"f\") { }"),
		  "t.stp:1:31: library(\"libfoo.so\") needs the library's path [e.g. "
		  "library(\"/lib/x86_64-linux-gnu/libc.so.6\"), or probe it directly: "
		  "process(\"/path/to/lib.so\").function(\"f\")]");
	EXPECT_EQ(first_error("probe process(\"prog\").library(\"/lib/nope.so\").function(\"f\") { }"),
		  "t.stp:1:31: cannot find '/lib/nope.so' [give the program's path]");
	EXPECT_EQ(first_error("probe process(\"prog\").plt(\"free\") { }"),
		  "t.stp:1:27: no PLT entry matches 'free' in /usr/bin/prog");
}

TEST(ProcessProbes, TargetVariableErrors)
{
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"quiet\") { println($x) }"),
		  "t.stp:1:51: no DWARF for quiet in /usr/bin/prog: $vars need debugging "
		  "information (-g, or a debug file under /usr/lib/debug)");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"quiet\") { println($$parms) }"),
		  "t.stp:1:51: no DWARF for quiet in /usr/bin/prog: $vars need debugging "
		  "information (-g, or a debug file under /usr/lib/debug)");
	EXPECT_EQ(first_error("probe process(\"prog\").begin { println($x) }"),
		  "t.stp:1:39: target variable '$x' in 'process(\"/usr/bin/prog\").begin': process "
		  "begin and end probes have no target variables [probe a function of the program: "
		  "process(\"PATH\").function(\"f\")]");
	EXPECT_EQ(first_error("probe process.end { println($$parms) }"),
		  "t.stp:1:29: '$$parms' in 'process.end': process begin and end probes have no "
		  "parameters");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work\") { println($nope) }"),
		  "t.stp:1:50: no parameter or local 'nope' in work");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work\") { println(@entry($n)) }"),
		  "t.stp:1:50: @entry() is only meaningful in .return probes");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work\").return { println($$parms) }"),
		  "t.stp:1:57: '$$parms' in 'process(\"/usr/bin/prog\").function(\"work@prog.c:20\")"
		  ".return': a .return probe has no parameters [read them with @entry($name)]");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work\") { println($$locals) }"),
		  "no error");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work\") { println($$locals);"
			      " println($$vars) }"),
		  "t.stp:1:69: '$$locals' and '$$vars' in one probe on "
		  "'process(\"/usr/bin/prog\").function(\"work@prog.c:20\")' [they print different "
		  "lists here: use one of them ($$vars has both)]");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work\") { println($$parms);"
			      " println($$vars) }"),
		  "t.stp:1:68: '$$parms' and '$$vars' in one probe on "
		  "'process(\"/usr/bin/prog\").function(\"work@prog.c:20\")' [they print different "
		  "lists here: use one of them ($$vars has both)]");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work\") { println($n$) }"),
		  "t.stp:1:50: '$n$' in 'process(\"/usr/bin/prog\").function(\"work@prog.c:20\")': "
		  "process probes do not pretty-print values [print the members you want: $n->member]");
	EXPECT_EQ(first_error("probe process(\"prog\").function(\"work\") { println($$parms$) }"),
		  "t.stp:1:50: '$$parms$' in 'process(\"/usr/bin/prog\").function(\"work@prog.c:20\")': "
		  "process probes do not pretty-print values [print them plainly: $$parms]");
}

TEST(ProcessProbes, MarkerArgumentErrors)
{
	EXPECT_EQ(first_error("probe process(\"prog\").mark(\"start\") { println($arg3) }"),
		  "t.stp:1:47: '$arg3' in 'process(\"/usr/bin/prog\").provider(\"myapp\")"
		  ".mark(\"start\")': the marker has 2 argument(s) [use $arg1 to $arg2]");
	EXPECT_EQ(first_error("probe process(\"prog\").mark(\"stop\") { println($arg1) }"),
		  "t.stp:1:46: '$arg1' in 'process(\"/usr/bin/prog\").provider(\"myapp\")"
		  ".mark(\"stop\")': the marker has 0 argument(s) [it passes none]");
	EXPECT_EQ(first_error("probe process(\"prog\").mark(\"start\") { println($x) }"),
		  "t.stp:1:47: '$x' in 'process(\"/usr/bin/prog\").provider(\"myapp\").mark(\"start\")': "
		  "SDT marker probes have $arg1 to $argN [the marker passes 2 argument(s)]");
	EXPECT_EQ(first_error("probe process(\"prog\").mark(\"start\") { println($arg2->x) }"),
		  "t.stp:1:47: '$arg2->x': an SDT marker's arguments have no types to take members or "
		  "indexes of [read what $arg2 points to with user_long(), user_int() or user_string()]");
	EXPECT_EQ(first_error("probe process(\"prog\").mark(\"odd\") { println($arg1) }"),
		  "t.stp:1:45: '$arg1' in 'process(\"/usr/bin/prog\").provider(\"myapp\").mark(\"odd\")': "
		  "cannot read the marker's argument '8@weird' [the note spells it in a form stap-pmu "
		  "does not know]");
}

TEST(ProcessProbes, ElaborationListsTheFilesProbed)
{
	// what --vm must place in the guest: each file once, in order
	auto src = std::make_unique<SourceFile>(
		"t.stp", "probe process(\"prog\").function(\"work\"), process(\"prog\").mark(\"start\"),\n"
			 " process(\"prog\").library(\"/lib/libfoo.so\").function(\"foo\"),"
			 " process.begin { }");
	Diagnostics diags;
	Parsed p = parse_pass(std::move(src), diags);
	FakeProcess facts;
	Elaborated e = elaborate_pass(p, TranslateOptions{}, nullptr, &facts, diags);
	ASSERT_FALSE(diags.has_errors());
	EXPECT_EQ(e.user_files, (std::vector<std::string>{"/usr/bin/prog", "/lib/libfoo.so"}));
}

TEST(ProcessProbes, ScriptsWithProcessProbesAreNotCached)
{
	auto parsed = [](const std::string &text) {
		Diagnostics diags;
		return parse_pass(std::make_unique<SourceFile>("t.stp", text), diags);
	};
	EXPECT_TRUE(names_process_probes(parsed("probe process(\"/bin/ls\").function(\"f\") { }")));
	EXPECT_TRUE(names_process_probes(parsed("probe a = process.begin { }\nprobe a { }")));
	EXPECT_FALSE(names_process_probes(parsed("probe begin { }")));
}
