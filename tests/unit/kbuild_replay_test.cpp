// kbuild_replay_test.cpp - recording kbuild's commands from the .cmd files it
// writes (6.1's cmd_ and 6.12's savedcmd_ forms, taken from real builds and
// shortened), the module name's places, the move onto a PCH, and the recipe
// file. tests/cli/kbuild_replay.sh replays real recipes against real make.
#include "translator/builder/kbuild_replay.h"
#include "translator/support/file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

using namespace stap_pmu;
namespace kr = stap_pmu::kbuild_replay;

namespace {

class KbuildReplay : public ::testing::Test {
protected:
	void SetUp() override
	{
		Result<sys::TempDir> d = sys::TempDir::create("kbuild_replay_test.");
		ASSERT_TRUE(d.ok());
		tmp_.emplace(std::move(*d));
		dir_ = tmp_->path();
	}
	void cmd(const std::string &target, const std::string &first_line)
	{
		std::ofstream(dir_ + "/." + target + ".cmd") << first_line << "\n\nsource_x := y\n";
	}
	// kbuild 6.1's files for module NAME (prefix "cmd_"), 6.12's with "savedcmd_"
	void write_61(const std::string &name, const std::string &prefix = "cmd_")
	{
		const std::string d = dir_;
		cmd(name + ".o", prefix + d + "/" + name + ".o :=  gcc-12 -Wp,-MMD," + d + "/." + name +
					 ".o.d -nostdinc -I./include -include /src/include/linux/kconfig.h "
					 "-include /src/include/linux/compiler_types.h -D__KERNEL__ -O2 -DMODULE  "
					 "-DKBUILD_BASENAME='\"" + name + "\"' -DKBUILD_MODNAME='\"" + name +
					 "\"' -D__KBUILD_MODNAME=kmod_" + name + " -c -o " + d + "/" + name + ".o " +
					 d + "/" + name + ".c   ; ./tools/objtool/objtool --orc   --module " + d + "/" +
					 name + ".o");
		cmd("modules.order", prefix + d + "/modules.order := {   echo " + d + "/" + name + ".ko; :; } > " +
					     d + "/modules.order");
		cmd(name + ".mod", prefix + d + "/" + name + ".mod := printf '%s\\n'   " + name +
					   ".o | awk '!x[$$0]++ { print(\"" + d + "/\"$$0) }' > " + d + "/" + name +
					   ".mod");
		cmd("Module.symvers", prefix + d + "/Module.symvers :=  sed 's/ko$$/o/'  " + d +
					      "/modules.order | scripts/mod/modpost -m -o " + d +
					      "/Module.symvers -e -i Module.symvers -T - ");
		cmd(name + ".mod.o", prefix + d + "/" + name + ".mod.o :=  gcc-12 -Wp,-MMD," + d + "/." + name +
					     ".mod.o.d -nostdinc -include /src/include/linux/kconfig.h -O2 -DMODULE "
					     "-DKBUILD_BASENAME='\"" + name + ".mod\"' -DKBUILD_MODNAME='\"" + name +
					     "\"' -D__KBUILD_MODNAME=kmod_" + name + " -c -o " + d + "/" + name +
					     ".mod.o " + d + "/" + name + ".mod.c");
		cmd(name + ".ko", prefix + d + "/" + name + ".ko := ld -r -m elf_x86_64 -T arch/x86/module.lds -o " +
					  d + "/" + name + ".ko " + d + "/" + name + ".o " + d + "/" + name +
					  ".mod.o;  true");
	}
	std::string btf_log(const std::string &name) const
	{
		return "make -f scripts/Makefile.modfinal\n  if [ ! -f vmlinux ]; then printf \"Skipping BTF "
		       "generation for %s due to unavailability of vmlinux\n\" " +
		       dir_ + "/" + name + ".ko 1>&2; else LLVM_OBJCOPY=\"objcopy\" pahole -J --btf_base vmlinux " +
		       dir_ + "/" + name + ".ko; ./tools/bpf/resolve_btfids/resolve_btfids -b vmlinux " + dir_ +
		       "/" + name + ".ko; fi;\nmake: Leaving directory\n";
	}

	std::optional<sys::TempDir> tmp_;
	std::string dir_;
};

} // namespace

TEST_F(KbuildReplay, RecordsKbuild61InItsOrderWithPlaceholders)
{
	write_61("stap_pmu_0123456789");
	Result<kr::Recipe> r = kr::record(dir_, "stap_pmu_0123456789", btf_log("stap_pmu_0123456789"));
	ASSERT_TRUE(r.ok()) << r.error().what;
	ASSERT_EQ(r->steps.size(), 8u);
	// the compile, fixdep's .cmd (modpost reads it), then kbuild's order
	EXPECT_EQ(r->steps[0].rfind(" gcc-12 -Wp,-MMD,@DIR@/.@NAME@.o.d -nostdinc", 0), 0u) << r->steps[0];
	EXPECT_NE(r->steps[0].find("-DKBUILD_MODNAME='\"@NAME@\"' -D__KBUILD_MODNAME=kmod_@NAME@ "
				   "-c -o @DIR@/@NAME@.o @DIR@/@NAME@.c   ; ./tools/objtool/objtool"),
		  std::string::npos)
		<< r->steps[0];
	EXPECT_EQ(r->steps[1].rfind("scripts/basic/fixdep @DIR@/.@NAME@.o.d @DIR@/@NAME@.o '", 0), 0u);
	EXPECT_NE(r->steps[1].find("' > @DIR@/.@NAME@.o.cmd; rm -f @DIR@/.@NAME@.o.d"), std::string::npos);
	EXPECT_EQ(r->steps[2], "{   echo @DIR@/@NAME@.ko; :; } > @DIR@/modules.order");
	// make's $$ is the shell's $
	EXPECT_EQ(r->steps[3], "printf '%s\\n'   @NAME@.o | awk '!x[$0]++ { print(\"@DIR@/\"$0) }' > @DIR@/@NAME@.mod");
	EXPECT_EQ(r->steps[4], " sed 's/ko$/o/'  @DIR@/modules.order | scripts/mod/modpost -m -o "
			       "@DIR@/Module.symvers -e -i Module.symvers -T - ");
	EXPECT_NE(r->steps[5].find("-DKBUILD_BASENAME='\"@NAME@.mod\"'"), std::string::npos);
	EXPECT_EQ(r->steps[6], "ld -r -m elf_x86_64 -T arch/x86/module.lds -o @DIR@/@NAME@.ko @DIR@/@NAME@.o "
			       "@DIR@/@NAME@.mod.o;  true");
	EXPECT_EQ(r->steps[7].rfind("if [ ! -f vmlinux ]; then", 0), 0u);
	EXPECT_NE(r->steps[7].find("pahole -J --btf_base vmlinux @DIR@/@NAME@.ko; "), std::string::npos);
	for (const std::string &s : r->steps) {
		EXPECT_EQ(s.find("stap_pmu_0123456789"), std::string::npos) << s;
		EXPECT_EQ(s.find(dir_), std::string::npos) << s;
	}
	std::vector<std::string> progs = kr::program_words(*r);
	EXPECT_EQ(progs, (std::vector<std::string>{"gcc-12", "scripts/basic/fixdep", "gcc-12", "ld"}));
	// expanded again for another module in another directory
	EXPECT_EQ(kr::expand(r->steps[2], "/w/x", "other"), "{   echo /w/x/other.ko; :; } > /w/x/modules.order");
}

TEST_F(KbuildReplay, Records612SavedcmdAndModuleCommon)
{
	write_61("m612", "savedcmd_");
	cmd(".module-common.o", "savedcmd_" + dir_ + "/.module-common.o :=  gcc-12 -c -o " + dir_ +
					"/.module-common.o /src/scripts/module-common.c");
	Result<kr::Recipe> r = kr::record(dir_, "m612", "");
	ASSERT_TRUE(r.ok()) << r.error().what;
	// no BTF step in make's output: none in the recipe
	ASSERT_EQ(r->steps.size(), 8u);
	EXPECT_EQ(r->steps[6], " gcc-12 -c -o @DIR@/.module-common.o /src/scripts/module-common.c");
	EXPECT_EQ(r->steps[7].rfind("ld -r", 0), 0u);
}

TEST_F(KbuildReplay, RefusesANameThatIsAlsoAWordOfTheCommands)
{
	// "ld" names the linker too: the recipe would run the next module's name
	write_61("ld");
	Result<kr::Recipe> r = kr::record(dir_, "ld", "");
	ASSERT_FALSE(r.ok());
	EXPECT_EQ(r.error().what, "the module name 'ld' is also a word of kbuild's commands");
	// a name inside another word is left alone
	write_61("gcc");
	EXPECT_FALSE(kr::record(dir_, "gcc", "").ok());
	write_61("cc");
	Result<kr::Recipe> cc = kr::record(dir_, "cc", "");
	ASSERT_TRUE(cc.ok()) << cc.error().what;
	EXPECT_EQ(cc->steps[0].rfind(" gcc-12 ", 0), 0u);
}

TEST_F(KbuildReplay, MissingOrForeignCmdFiles)
{
	Result<kr::Recipe> none = kr::record(dir_, "m", "");
	ASSERT_FALSE(none.ok());
	EXPECT_EQ(none.error().what, "kbuild wrote no " + dir_ + "/.m.o.cmd");
	write_61("m");
	cmd("m.mod", "cmd_/elsewhere/m.mod := true");
	Result<kr::Recipe> other = kr::record(dir_, "m", "");
	ASSERT_FALSE(other.ok());
	EXPECT_EQ(other.error().what, dir_ + "/.m.mod.cmd does not start with the command of m.mod");
}

TEST_F(KbuildReplay, MovesTheCompileOntoAPch)
{
	write_61("mp");
	Result<kr::Recipe> r = kr::record(dir_, "mp", "");
	ASSERT_TRUE(r.ok()) << r.error().what;
	std::optional<size_t> o = kr::compile_step(*r, "@NAME@.o");
	std::optional<size_t> mo = kr::compile_step(*r, "@NAME@.mod.o");
	ASSERT_TRUE(o && mo);
	EXPECT_EQ(*o, 0u);
	EXPECT_EQ(*mo, 5u);
	EXPECT_FALSE(kr::compile_step(*r, "@NAME@.ko"));
	ASSERT_TRUE(kr::use_pch(*r, 0, "/r", "stp_pch.h", "#include \"stp_kernel.h\"\n", ".stp_pch_names.h").ok());
	ASSERT_EQ(r->pchs.size(), 1u);
	const kr::Pch &p = r->pchs[0];
	// the PCH first, then the names; kbuild's -include's and name -D's gone
	EXPECT_EQ(r->steps[0], "gcc-12 -Wp,-MMD,@DIR@/.@NAME@.o.d -nostdinc -I./include -include /r/stp_pch.h "
			       "-include @DIR@/.stp_pch_names.h -D__KERNEL__ -O2 -DMODULE -c -o @DIR@/@NAME@.o "
			       "@DIR@/@NAME@.c ; ./tools/objtool/objtool --orc   --module @DIR@/@NAME@.o");
	EXPECT_EQ(p.create, "gcc-12 -nostdinc -I./include -D__KERNEL__ -O2 -DMODULE -x c-header -c -o "
			    "@PCH@/stp_pch.h.gch @PCH@/stp_pch.h");
	EXPECT_NE(p.text.find("#include \"/src/include/linux/kconfig.h\"\n#include "
			      "\"/src/include/linux/compiler_types.h\"\n#include \"stp_kernel.h\"\n"),
		  std::string::npos)
		<< p.text;
	EXPECT_EQ(p.names_text, "#define KBUILD_BASENAME \"@NAME@\"\n#define KBUILD_MODNAME \"@NAME@\"\n"
				"#define __KBUILD_MODNAME kmod_@NAME@\n");
	EXPECT_EQ(p.names_file, ".stp_pch_names.h");

	// a command without kbuild's forced headers, or not ending in the object and source
	kr::Recipe bare;
	bare.steps = {"gcc -O2 -c -o @DIR@/@NAME@.o @DIR@/@NAME@.c"};
	Status st = kr::use_pch(bare, 0, "/r", "h.h", "", ".n.h");
	ASSERT_FALSE(st.ok());
	EXPECT_EQ(st.error().what, "kbuild's compile command has no forced -include or no name -D");
	bare.steps = {"gcc -include k.h -DKBUILD_MODNAME='\"@NAME@\"' -c @DIR@/@NAME@.c -o @DIR@/@NAME@.o"};
	st = kr::use_pch(bare, 0, "/r", "h.h", "", ".n.h");
	ASSERT_FALSE(st.ok());
	EXPECT_EQ(st.error().what, "kbuild's compile command does not end in -c -o OBJECT SOURCE");
}

TEST_F(KbuildReplay, RecipeFileRoundTrip)
{
	kr::Recipe r;
	r.steps = {"if a; then printf \"x\ny\\n\"; fi;", "ld -o @DIR@/@NAME@.ko"};
	r.env = {"SRCARCH=x86", "KBUILD_EXTMOD=@DIR@"};
	r.programs = {"/usr/bin/ld 10 1.0"};
	kr::Pch p;
	p.header = "stp_pch.h";
	p.text = "#include \"a.h\"\n";
	p.create = "gcc -x c-header";
	p.names_file = ".n.h";
	p.names_text = "#define KBUILD_MODNAME \"@NAME@\"\n";
	r.pchs = {p, p};
	r.pchs[1].header = "stp_modc_pch.h";
	std::string text = kr::to_text(r);
	Result<kr::Recipe> back = kr::from_text(text);
	ASSERT_TRUE(back.ok()) << back.error().what;
	EXPECT_EQ(back->steps, r.steps);
	EXPECT_EQ(back->env, r.env);
	EXPECT_EQ(back->programs, r.programs);
	ASSERT_EQ(back->pchs.size(), 2u);
	EXPECT_EQ(back->pchs[1].header, "stp_modc_pch.h");
	EXPECT_EQ(back->pchs[0].text, p.text);
	EXPECT_EQ(back->pchs[0].names_text, p.names_text);
	EXPECT_EQ(kr::to_text(*back), text);

	EXPECT_EQ(kr::from_text("something else\n").error().what, "not a kbuild recipe of this stap-pmu");
	EXPECT_EQ(kr::from_text("stap-pmu kbuild recipe 1\nstep a\nflavour b\n").error().what,
		  "unknown field 'flavour' in a kbuild recipe");
	EXPECT_EQ(kr::from_text("stap-pmu kbuild recipe 1\n").error().what, "a kbuild recipe without commands");
}

TEST(KbuildReplayText, ShellWordsKeepQuotes)
{
	EXPECT_EQ(kr::shell_words("gcc  -DX='\"a b\"' -o \"x y\"\t-c"),
		  (std::vector<std::string>{"gcc", "-DX='\"a b\"'", "-o", "\"x y\"", "-c"}));
	EXPECT_EQ(kr::shell_words(""), std::vector<std::string>{});
}

TEST(KbuildReplayText, LeadingDirectivesOfModC)
{
	EXPECT_EQ(kr::leading_directives("#include <linux/module.h>\n#define INCLUDE_VERMAGIC\n"
					  "#include <linux/vermagic.h>\n\nBUILD_SALT;\n#include <x.h>\n"),
		  "#include <linux/module.h>\n#define INCLUDE_VERMAGIC\n#include <linux/vermagic.h>\n");
	EXPECT_EQ(kr::leading_directives("int x;\n"), "");
}
