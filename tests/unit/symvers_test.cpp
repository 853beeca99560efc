// symvers_test.cpp - the lines of Module.symvers a module needs
// (translator/builder/symvers.h). That modpost given them writes make's
// NAME.mod.c is tests/cli/kbuild_replay.sh's check.
#include "translator/builder/symvers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "translator/support/file.h"

using namespace stap_pmu;

namespace {

// Module.symvers as 6.1 writes it: CRC, symbol, module, export, namespace
const std::string kSymvers = "0x1a2b3c4d\tregister_kprobes\tvmlinux\tEXPORT_SYMBOL_GPL\t\n"
			     "0x00000001\tregister_kprobe\tvmlinux\tEXPORT_SYMBOL_GPL\t\n"
			     "0x5e6f7081\tmodule_layout\tvmlinux\tEXPORT_SYMBOL\t\n"
			     "0x0badcafe\tusb_stor_probe1\tdrivers/usb/storage/usb-storage\tEXPORT_SYMBOL_GPL\tUSB_STORAGE\n"
			     "0x12345678\tkfree\tvmlinux\tEXPORT_SYMBOL\t\n";

bool has(const std::vector<std::string> &v, const std::string &prefix)
{
	return std::any_of(v.begin(), v.end(), [&](const std::string &s) { return s.rfind(prefix, 0) == 0; });
}

} // namespace

TEST(Symvers, SelectKeepsTheImportsLinesWhole)
{
	// whole lines, in the kernel's order; a name is a whole field
	// (register_kprobe is not register_kprobes); module_layout always
	EXPECT_EQ(symvers::select(kSymvers, {"kfree", "usb_stor_probe1", "register_kprobes", "no_such"}),
		  "0x1a2b3c4d\tregister_kprobes\tvmlinux\tEXPORT_SYMBOL_GPL\t\n"
		  "0x5e6f7081\tmodule_layout\tvmlinux\tEXPORT_SYMBOL\t\n"
		  "0x0badcafe\tusb_stor_probe1\tdrivers/usb/storage/usb-storage\tEXPORT_SYMBOL_GPL\tUSB_STORAGE\n"
		  "0x12345678\tkfree\tvmlinux\tEXPORT_SYMBOL\t\n");
	EXPECT_EQ(symvers::select(kSymvers, {}), "0x5e6f7081\tmodule_layout\tvmlinux\tEXPORT_SYMBOL\t\n");
	// a last line without its newline, and lines of no symbol
	EXPECT_EQ(symvers::select("garbage\n\n0x1\tkfree\tvmlinux\tEXPORT_SYMBOL\t", {"kfree"}),
		  "0x1\tkfree\tvmlinux\tEXPORT_SYMBOL\t\n");
}

TEST(Symvers, UndefinedSymbolsOfAnObject)
{
	// tests/unit/userinfo/prog.c calls atoi and printf and defines main
	const std::string dir = STAP_PMU_USERINFO_DIR;
	for (const char *prog : {"prog_O0", "prog_arm64_O0"}) {
		const std::string path = dir + "/" + prog;
		if (std::string(prog) == "prog_arm64_O0" && !sys::read_file(path))
			continue; // no cross compiler (tests/unit/CMakeLists.txt)
		Result<std::vector<std::string>> u = symvers::undefined_symbols(path);
		ASSERT_TRUE(u) << u.error().what;
		EXPECT_TRUE(has(*u, "atoi")) << prog;
		EXPECT_TRUE(has(*u, "printf")) << prog;
		EXPECT_FALSE(has(*u, "main")) << prog;
	}
	Result<std::vector<std::string>> bad = symvers::undefined_symbols(std::string(STAP_PMU_SOURCE_DIR) + "/README.md");
	ASSERT_FALSE(bad);
	EXPECT_EQ(bad.error().what, std::string(STAP_PMU_SOURCE_DIR) + "/README.md: not an ELF file");
	bad = symvers::undefined_symbols("/no/such/object.o");
	ASSERT_FALSE(bad);
	EXPECT_EQ(bad.error().what, "cannot read /no/such/object.o");
}
