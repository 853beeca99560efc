// dwarf_pretty_test.cpp - KernelFacts::type_members from DWARF: the test
// module (tests/testmod, built here with -g for the installed 6.1 kernel)
// and its struct stp_tm_rec / struct stp_tm_arr as $var$ and $var$$ see them.
#include <gtest/gtest.h>

#include <filesystem>

#include "translator/kernelinfo/dwarf_facts.h"
#include "translator/support/file.h"
#include "translator/support/process.h"

using namespace stap_pmu;
namespace fs = std::filesystem;

namespace {

// The newest installed 6.1 kernel with headers ("6.1.0-57-amd64").
std::string release61()
{
	std::string best;
	std::error_code ec;
	for (const auto &e : fs::directory_iterator("/usr/src", ec)) {
		std::string n = e.path().filename().string();
		if (n.rfind("linux-headers-6.1.", 0) == 0 && n.size() > 20 &&
		    n.substr(n.size() - 6) == "-amd64" && n.substr(14) > best)
			best = n.substr(14);
	}
	return best;
}

// stp_testmod.ko built once per process (its path; "" : the build failed).
const std::string &testmod()
{
	static const std::string ko = [] {
		static auto dir = sys::TempDir::create("pretty-testmod");
		if (!dir)
			return std::string();
		sys::Spawn sp;
		sp.argv = {"bash", std::string(STAP_PMU_SOURCE_DIR) + "/tests/testmod/build.sh",
			   std::string(STAP_PMU_SOURCE_DIR) + "/tests/testmod", dir->path(), release61()};
		sp.out = sys::Spawn::kInherit;
		sp.err = sys::Spawn::kInherit;
		auto st = sys::run(sp, 300);
		if (!st || *st != 0)
			return std::string();
		return dir->path() + "/stp_testmod.ko";
	}();
	return ko;
}

KernelFunction function(const DwarfKernelFacts &facts, const std::string &name)
{
	auto fns = facts.functions("stp_testmod", name);
	EXPECT_TRUE(fns) << (fns ? "" : fns.error().what);
	return fns && fns->size() == 1 ? (*fns)[0] : KernelFunction{};
}

} // namespace

TEST(DwarfPretty, TestModuleStructs)
{
	ASSERT_FALSE(testmod().empty()) << "tests/testmod did not build";
	dwarf::Options o;
	o.release = release61();
	o.module_files = {testmod()};
	DwarfKernelFacts facts(o, nullptr);

	// struct stp_tm_rec { int id; long val; struct stp_tm_rec *next; char name[16]; }
	KernelFunction fill = function(facts, "stp_tm_rec_fill");
	auto r = facts.type_members(fill, "$r", false, 1);
	ASSERT_TRUE(r) << r.error().what;
	EXPECT_TRUE(r->pointee);
	EXPECT_EQ(r->root.type, "struct stp_tm_rec");
	EXPECT_EQ(r->root.size, 40u);
	ASSERT_EQ(r->root.members.size(), 4u);
	const auto &m = r->root.members;
	EXPECT_EQ(m[0].name, "id");
	EXPECT_EQ(m[0].kind, TypeMember::Signed);
	EXPECT_EQ(m[0].offset, 0);
	EXPECT_EQ(m[0].size, 4u);
	EXPECT_EQ(m[1].name, "val");
	EXPECT_EQ(m[1].offset, 8);
	EXPECT_EQ(m[1].size, 8u);
	EXPECT_EQ(m[2].name, "next");
	EXPECT_EQ(m[2].kind, TypeMember::Pointer);
	EXPECT_EQ(m[2].offset, 16);
	EXPECT_EQ(m[3].name, "name");
	EXPECT_EQ(m[3].kind, TypeMember::CharArray);
	EXPECT_EQ(m[3].offset, 24);
	EXPECT_EQ(m[3].count, 16u);

	auto i = facts.type_members(fill, "$i", false, 1);
	ASSERT_TRUE(i) << i.error().what;
	EXPECT_FALSE(i->pointee);
	EXPECT_EQ(i->root.kind, TypeMember::Signed);

	// struct stp_tm_arr { int vals[4]; struct stp_tm_rec recs[2];
	//                     struct stp_tm_rec *ptrs[2]; short grid[2][3]; }
	KernelFunction arr = function(facts, "stp_tm_arr_fill");
	auto one = facts.type_members(arr, "$a", false, 1);
	ASSERT_TRUE(one) << one.error().what;
	ASSERT_EQ(one->root.members.size(), 4u);
	const TypeMember &recs = one->root.members[1];
	EXPECT_EQ(recs.name, "recs");
	EXPECT_EQ(recs.kind, TypeMember::Array);
	EXPECT_EQ(recs.offset, 16);
	EXPECT_EQ(recs.count, 2u);
	ASSERT_EQ(recs.members.size(), 1u); // the element
	EXPECT_EQ(recs.members[0].kind, TypeMember::Struct);
	EXPECT_EQ(recs.members[0].size, 40u);
	EXPECT_FALSE(recs.members[0].expanded); // depth 1: "{...}"
	EXPECT_EQ(one->root.members[0].count, 4u);
	EXPECT_EQ(one->root.members[2].offset, 96);
	EXPECT_EQ(one->root.members[3].name, "grid");
	EXPECT_TRUE(one->root.members[3].members.empty()); // two dimensions: "[...]"

	auto deep = facts.type_members(arr, "$a", false, 4);
	ASSERT_TRUE(deep) << deep.error().what;
	const TypeMember &el = deep->root.members[1].members[0];
	ASSERT_TRUE(el.expanded);
	ASSERT_EQ(el.members.size(), 4u);
	EXPECT_EQ(el.members[3].name, "name");
	EXPECT_EQ(el.members[3].offset, 24);

	auto bad = facts.type_members(arr, "$nope", false, 1);
	EXPECT_FALSE(bad);
}
