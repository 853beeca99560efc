// kconfig_test.cpp - KernelConfig (translator/support/kconfig.h): a tree's
// CONFIG_ lines looked up by name.
#include <gtest/gtest.h>

#include "translator/support/kconfig.h"

using stap_pmu::KernelConfig;

TEST(KernelConfig, ParsesConfigLinesOnly)
{
	KernelConfig c = KernelConfig::parse("#\n# Automatically generated file; DO NOT EDIT.\n"
					     "CONFIG_SMP=y\n# CONFIG_KASAN is not set\n"
					     "CONFIG_HZ=250\nCONFIG_LOCALVERSION=\"-amd64\"\n"
					     "NOT_CONFIG=1\nCONFIG_NOVALUE\nCONFIG_EMPTY=\n"
					     "CONFIG_M=m");
	EXPECT_EQ(c.size(), 5u);
	EXPECT_EQ(c.get("CONFIG_SMP"), "y");
	EXPECT_EQ(c.get("CONFIG_HZ"), "250");
	EXPECT_EQ(c.get("CONFIG_LOCALVERSION"), "\"-amd64\"");
	EXPECT_EQ(c.get("CONFIG_EMPTY"), "");
	EXPECT_EQ(c.get("CONFIG_M"), "m"); // the last line, without a newline
	EXPECT_FALSE(c.get("CONFIG_KASAN"));
	EXPECT_FALSE(c.get("CONFIG_NOVALUE"));
	EXPECT_FALSE(c.get("NOT_CONFIG"));
	EXPECT_FALSE(c.get("CONFIG_SM"));  // a prefix of a name
	EXPECT_FALSE(c.get("CONFIG_SMPX")); // a name a prefix of it
	EXPECT_TRUE(c.has("CONFIG_HZ"));
	EXPECT_TRUE(KernelConfig::parse("").empty());
}

// Kconfig order is not name order, and a later line for an option wins (as
// in make's include of auto.conf).
TEST(KernelConfig, LaterLineWinsInAnyOrder)
{
	KernelConfig c = KernelConfig::parse("CONFIG_Z=1\nCONFIG_A=1\nCONFIG_M=1\nCONFIG_A=2\n"
					     "CONFIG_Z=3\nCONFIG_Z=4\n");
	EXPECT_EQ(c.size(), 3u);
	EXPECT_EQ(c.get("CONFIG_A"), "2");
	EXPECT_EQ(c.get("CONFIG_M"), "1");
	EXPECT_EQ(c.get("CONFIG_Z"), "4");
}

// set() adds or replaces; copies share the file's text and keep their own
// entries.
TEST(KernelConfig, SetAndCopies)
{
	KernelConfig c = KernelConfig::parse("CONFIG_B=y\nCONFIG_D=y\n");
	KernelConfig copy = c;
	c.set("CONFIG_C", "m");
	c.set("CONFIG_A", "\"x\"");
	c.set("CONFIG_D", "n");
	EXPECT_EQ(c.size(), 4u);
	EXPECT_EQ(c.get("CONFIG_A"), "\"x\"");
	EXPECT_EQ(c.get("CONFIG_B"), "y");
	EXPECT_EQ(c.get("CONFIG_C"), "m");
	EXPECT_EQ(c.get("CONFIG_D"), "n");
	EXPECT_EQ(copy.size(), 2u);
	EXPECT_EQ(copy.get("CONFIG_D"), "y");
	EXPECT_FALSE(copy.get("CONFIG_C"));
	KernelConfig moved = std::move(c);
	EXPECT_EQ(moved.get("CONFIG_A"), "\"x\"");
	EXPECT_EQ(copy.get("CONFIG_B"), "y"); // the shared text outlives the original
}
