// uprobe_codegen_test.cpp - the generated C of process probe points
// (runtime/stp_uprobes.h): the probe table's file, offsets and semaphore,
// target variables with a DWARF location base read from user memory, and
// STP_HAVE_UPROBES only in scripts that have such points. The points are
// set on a checked script's instances the way the process provider
// resolves them.
#include <gtest/gtest.h>

#include "frontend_helpers.h"
#include "translator/codegen/codegen.h"

using namespace stap_pmu;
using stap_pmu::test::Checked;

namespace {

std::string code_of(Checked &c)
{
	CodegenInput in;
	in.script = &c.script;
	in.sema = &c.sema;
	in.module_name = "m";
	return generate_c(in);
}

TargetAccess loc(Location::Kind kind, int reg, int64_t off, unsigned size, bool is_signed)
{
	TargetAccess a;
	a.base = TargetAccess::Loc;
	a.loc.kind = kind;
	a.loc.reg = reg;
	a.loc.off = off;
	a.user = true;
	a.size = size;
	a.is_signed = is_signed;
	return a;
}

TEST(UprobeCodegen, ProbeTableAndLocationVariables)
{
	Checked c("global n\nprobe begin { n++ }\nprobe begin { n++ }\n"
		  "probe begin { n++ }\nprobe begin { n++ }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.instances.size(), 4u);
	ResolvedPoint &u = c.sema.instances[0].point;
	u.kind = ProbeKind::Uprobe;
	u.name = "process(\"/bin/x\").mark(\"m\")";
	u.path = "/bin/x";
	u.uoffset = 0x1139;
	u.uvaddr = 0x401139;
	u.semaphore = 0x4010;
	u.tvars.push_back(loc(Location::Mem, 6, -20, 4, true));
	TargetAccess chain = loc(Location::Static, 0, 0x404028, 8, false);
	chain.offsets = {16};
	chain.deref_last = true;
	u.tvars.push_back(chain);
	// $$parms of a user function: a pointer parameter prints as it is
	auto fn = std::make_shared<KernelFunction>();
	fn->name = "f";
	fn->ret_type = "char *";
	fn->params.push_back({"p", "struct s *", -1, ""});
	u.func = fn;
	u.parms.emplace_back("p", loc(Location::Reg, 5, 0, 8, false));
	ResolvedPoint &r = c.sema.instances[1].point;
	r.kind = ProbeKind::Uretprobe;
	r.path = "/bin/x";
	r.uoffset = 0x1120;
	r.uvaddr = 0x1120;
	// $return as the facts give it, the return register's location: read
	// at the return, not saved at entry like the other locations
	r.tvars.push_back(loc(Location::Reg, 0, 0, 8, false));
	c.sema.bodies[c.sema.instances[1].body].tvars = {"$return", "@entry:$n"};
	TargetAccess at_entry = loc(Location::Reg, 5, 0, 8, true);
	at_entry.at_entry = true;
	r.tvars.push_back(at_entry);
	c.sema.instances[2].point.kind = ProbeKind::ProcessBegin;
	c.sema.instances[3].point.kind = ProbeKind::ProcessEnd;
	c.sema.instances[3].point.path = "/bin/x";
	std::string code = code_of(c);
	for (const char *want :
	     {"#define STP_HAVE_UPROBES 1\n", ".kind = STP_PROBE_UPROBE,\n",
	      "\t\t.path = \"/bin/x\",\n\t\t.uoffset = 0x1139ULL,\n\t\t.uvaddr = 0x401139ULL,\n"
	      "\t\t.semaphore = 0x4010ULL,\n",
	      "{ .base = STP_TVAR_LOC, .lkind = STP_LOC_MEM, .reg = 6, .loff = -20LL, .size = 4, "
	      ".is_signed = 1, .nderef = 0, .deref_last = 0, .at_entry = 0, .off = { }, .user = 1 },",
	      "{ .base = STP_TVAR_LOC, .lkind = STP_LOC_STATIC, .reg = 0, .loff = 4210728LL, "
	      ".size = 8, .is_signed = 0, .nderef = 1, .deref_last = 1, .at_entry = 0, "
	      ".off = { 16 }, .user = 1 },",
	      ".kind = STP_PROBE_URETPROBE,\n", "\t\t.uoffset = 0x1120ULL,\n\t\t.uvaddr = 0x1120ULL,\n",
	      "{ .base = STP_TVAR_RETURN, .arg = 0, .size = 8, .is_signed = 0, .nderef = 0, "
	      ".deref_last = 0, .at_entry = 0, .off = { }, .user = 1 },",
	      "{ .base = STP_TVAR_LOC, .lkind = STP_LOC_REG, .reg = 5, .loff = 0LL, .size = 8, "
	      ".is_signed = 1, .nderef = 0, .deref_last = 0, .at_entry = 1, .off = { }, .user = 1 },",
	      ".kind = STP_PROBE_PROCESS_BEGIN,\n", ".kind = STP_PROBE_PROCESS_END,\n\t\t.path = \"/bin/x\",\n"})
		EXPECT_NE(code.find(want), std::string::npos) << want;
	// process.begin of any process names no file, and no point but the
	// uprobe has a semaphore
	EXPECT_EQ(code.find(".kind = STP_PROBE_PROCESS_BEGIN,\n\t\t.path"), std::string::npos);
	EXPECT_EQ(code.find(".semaphore"), code.rfind(".semaphore"));
	// user addresses are not hashed like kernel ones
	EXPECT_NE(code.find("\t{ .base = STP_TVAR_LOC, .lkind = STP_LOC_REG, .reg = 5, .loff = 0LL, "
			    ".size = 8, .is_signed = 0, .user = 1 }, /* p */"),
		  std::string::npos);
	EXPECT_EQ(code.find(".parm_ptrmask"), std::string::npos);
}

TEST(UprobeCodegen, OnlyScriptsWithUserProbesHaveThem)
{
	Checked c("global n\nprobe begin { n++ }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	std::string code = code_of(c);
	EXPECT_EQ(code.find("STP_HAVE_UPROBES"), std::string::npos);
	EXPECT_EQ(code.find(".uoffset"), std::string::npos);
}

} // namespace
