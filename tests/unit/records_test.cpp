// The records stream of /proc/<module>/records and its JSON form.
#include "translator/run/loader.h"
#include "translator/run/records.h"
#include "translator/run/vm.h"

#include <gtest/gtest.h>

using namespace stap_pmu::loader;

namespace {

std::string frame(uint64_t seq, unsigned cpu, uint64_t ts, char type, std::string_view name,
		  std::string_view text)
{
	return std::to_string(seq) + " " + std::to_string(cpu) + " " + std::to_string(ts) + " " + type +
	       " " + std::to_string(name.size()) + " " + std::to_string(text.size()) + "\n" +
	       std::string(name) + std::string(text);
}

} // namespace

TEST(Records, DecodesWholeStream)
{
	std::string s = frame(1, 0, 100, 'o', "begin", "hello\n") +
			frame(2, 1, 250, 'e', "kprobe.function(\"f\")", "ERROR: x near y\n") +
			frame(3, 1, 260, 'o', "", std::string("a\0b\n", 4));
	RecordDecoder d;
	std::vector<Record> out;
	ASSERT_TRUE(d.feed(s, out));
	ASSERT_EQ(out.size(), 3u);
	EXPECT_EQ(out[0].seq, 1u);
	EXPECT_EQ(out[0].cpu, 0u);
	EXPECT_EQ(out[0].timestamp_ns, 100u);
	EXPECT_FALSE(out[0].error);
	EXPECT_EQ(out[0].probe, "begin");
	EXPECT_EQ(out[0].text, "hello\n");
	EXPECT_EQ(out[1].cpu, 1u);
	EXPECT_TRUE(out[1].error);
	EXPECT_EQ(out[1].probe, "kprobe.function(\"f\")");
	EXPECT_EQ(out[1].text, "ERROR: x near y\n");
	EXPECT_EQ(out[2].probe, "");
	EXPECT_EQ(out[2].text, std::string("a\0b\n", 4));
	EXPECT_EQ(d.pending(), 0u);
}

// The kernel delivers what fits in the reader's buffer: any split works.
TEST(Records, DecodesAnySplit)
{
	std::string s;
	for (int i = 1; i <= 20; i++)
		s += frame(i, i % 3, 1000 + i, i % 7 ? 'o' : 'e', "timer.ms(10)",
			   "line " + std::to_string(i) + " \n with a newline in the text\n");
	for (size_t chunk : {1u, 2u, 3u, 7u, 64u, 4096u}) {
		RecordDecoder d;
		std::vector<Record> out;
		for (size_t p = 0; p < s.size(); p += chunk)
			ASSERT_TRUE(d.feed(std::string_view(s).substr(p, chunk), out)) << chunk;
		ASSERT_EQ(out.size(), 20u) << chunk;
		for (int i = 1; i <= 20; i++) {
			EXPECT_EQ(out[i - 1].seq, (uint64_t)i);
			EXPECT_EQ(out[i - 1].cpu, (unsigned)(i % 3));
			EXPECT_EQ(out[i - 1].error, i % 7 == 0);
			EXPECT_EQ(out[i - 1].text,
				  "line " + std::to_string(i) + " \n with a newline in the text\n");
		}
		EXPECT_EQ(d.pending(), 0u);
	}
}

TEST(Records, HoldsBackAnIncompleteRecord)
{
	std::string s = frame(7, 0, 1, 'o', "end", "done\n");
	RecordDecoder d;
	std::vector<Record> out;
	ASSERT_TRUE(d.feed(s.substr(0, s.size() - 1), out));
	EXPECT_TRUE(out.empty());
	EXPECT_EQ(d.pending(), s.size() - 1);
	ASSERT_TRUE(d.feed(s.substr(s.size() - 1), out));
	ASSERT_EQ(out.size(), 1u);
	EXPECT_EQ(out[0].text, "done\n");
}

TEST(Records, RejectsMalformedHeaders)
{
	for (const char *bad : {"1 0 5 x 0 1\nA", "1 0 5 o 0\n", "1 0 5 o 0 1 9\nA", "01 0 5 o 0 1\nA",
				"1  0 5 o 0 1\nA", "-1 0 5 o 0 1\nA", "1 0 5 o 0 99999999999999999999\n",
				"1 4294967296 5 o 0 1\nA", "1 0 5 o 0 268435457\n", "hello world\n"}) {
		RecordDecoder d;
		std::vector<Record> out;
		EXPECT_FALSE(d.feed(bad, out)) << bad;
		EXPECT_TRUE(out.empty()) << bad;
		EXPECT_FALSE(d.error().empty()) << bad;
		// and it stays failed
		EXPECT_FALSE(d.feed(frame(1, 0, 0, 'o', "", "x"), out));
	}
	// a header line that never ends
	RecordDecoder d;
	std::vector<Record> out;
	EXPECT_FALSE(d.feed(std::string(200, '1'), out));
	EXPECT_EQ(d.error(), "record header longer than 128 bytes");
}

TEST(Json, EscapesQuotesBackslashesAndControls)
{
	EXPECT_EQ(json_string(""), "\"\"");
	EXPECT_EQ(json_string("plain text"), "\"plain text\"");
	EXPECT_EQ(json_string("say \"hi\"\\n"), "\"say \\\"hi\\\"\\\\n\"");
	EXPECT_EQ(json_string("a\nb\tc\rd\be\ff"), "\"a\\nb\\tc\\rd\\be\\ff\"");
	EXPECT_EQ(json_string(std::string("\0\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\x7f\"");
	EXPECT_EQ(json_string("\x1b[0m"), "\"\\u001b[0m\"");
	EXPECT_EQ(json_string("/"), "\"/\"");
}

TEST(Json, KeepsValidUtf8)
{
	// é (2 bytes), € (3), U+FFFF, 😀 (4), U+10FFFF
	for (const char *s : {"\xc3\xa9", "\xe2\x82\xac", "\xef\xbf\xbf", "\xf0\x9f\x98\x80",
			      "\xf4\x8f\xbf\xbf", "caf\xc3\xa9 \xe2\x82\xac 5"})
		EXPECT_EQ(json_string(s), std::string("\"") + s + "\"") << s;
}

TEST(Json, ReplacesEachInvalidByte)
{
	const std::string r = "\\ufffd";
	EXPECT_EQ(json_string("\xff"), "\"" + r + "\"");
	EXPECT_EQ(json_string("a\x80z"), "\"a" + r + "z\"");                 // lone continuation
	EXPECT_EQ(json_string("\xe2\x82"), "\"" + r + r + "\"");            // truncated
	EXPECT_EQ(json_string("\xe2\x82x"), "\"" + r + r + "x\"");
	EXPECT_EQ(json_string("\xc0\xaf"), "\"" + r + r + "\"");            // overlong '/'
	EXPECT_EQ(json_string("\xe0\x80\xaf"), "\"" + r + r + r + "\"");    // overlong
	EXPECT_EQ(json_string("\xed\xa0\x80"), "\"" + r + r + r + "\"");    // surrogate D800
	EXPECT_EQ(json_string("\xf4\x90\x80\x80"), "\"" + r + r + r + r + "\""); // > U+10FFFF
	EXPECT_EQ(json_string("\xf5\x80"), "\"" + r + r + "\"");
	EXPECT_EQ(json_string("\xc3\xa9\xc3"), "\"\xc3\xa9" + r + "\"");
}

TEST(Json, Record)
{
	Record r;
	r.seq = 42;
	r.cpu = 3;
	r.timestamp_ns = 123456789012;
	r.probe = "kprobe.function(\"__x64_sys_getpid\")";
	r.text = "n=1\n";
	EXPECT_EQ(record_json(r),
		  "{\"probe\":\"kprobe.function(\\\"__x64_sys_getpid\\\")\",\"cpu\":3,"
		  "\"timestamp_ns\":123456789012,\"seq\":42,\"type\":\"output\",\"text\":\"n=1\\n\"}");
	r.error = true;
	r.probe = "";
	r.text = "ERROR: x\n";
	EXPECT_EQ(record_json(r), "{\"probe\":\"\",\"cpu\":3,\"timestamp_ns\":123456789012,\"seq\":42,"
				  "\"type\":\"error\",\"text\":\"ERROR: x\\n\"}");
}

TEST(Records, StatusDropsAndWarning)
{
	auto s = parse_status("stopped 0\nskipped 0\ndropped 881\ndropped_bytes 30835\nerror 0\n"
			      "bufsize 4096\ncpu0 written 119 dropped 881 dropped_bytes 30835\n");
	ASSERT_TRUE(s);
	EXPECT_EQ(s->dropped, 881u);
	EXPECT_EQ(s->dropped_bytes, 30835u);
	EXPECT_EQ(s->bufsize, 4096u);
	EXPECT_EQ(dropped_warning(*s), "WARNING: 881 output records dropped (30835 bytes): a CPU's "
				       "output buffer (4096 bytes) was full; -D STP_BUFSIZE=BYTES "
				       "makes it larger");
	s->dropped = 1;
	s->dropped_bytes = 9;
	s->bufsize = 0;
	EXPECT_EQ(dropped_warning(*s), "WARNING: 1 output record dropped (9 bytes): a CPU's output "
				       "buffer was full; -D STP_BUFSIZE=BYTES makes it larger");
	s->dropped = 0;
	EXPECT_EQ(dropped_warning(*s), "");
}

TEST(Records, StatusNestedRecords)
{
	auto s = parse_status("stopped 0\nskipped 2\ndropped 0\ndropped_bytes 0\nnested 37\n"
			      "error 0\ncpu0 written 90 dropped 0 dropped_bytes 0 nested 20\n"
			      "cpu1 written 80 dropped 0 dropped_bytes 0 nested 17\n");
	ASSERT_TRUE(s);
	EXPECT_EQ(s->nested, 37u);
	EXPECT_EQ(s->skipped, 2u);
	EXPECT_EQ(nested_note(*s), "stap-pmu: 37 output records through the nested (NMI) rings");
	s->nested = 1;
	EXPECT_EQ(nested_note(*s), "stap-pmu: 1 output record through the nested (NMI) rings");
	s->nested = 0;
	EXPECT_EQ(nested_note(*s), "");
	// a module built before the line existed: none
	auto old = parse_status("stopped 0\nskipped 0\ndropped 0\n");
	ASSERT_TRUE(old);
	EXPECT_EQ(old->nested, 0u);
}

// --output-format json reaches the guest loader in both /init scripts.
TEST(Records, GuestLoaderGetsJsonFlag)
{
	stap_pmu::vm::VmOptions o;
	o.module_path = "/tmp/x/mod_t.ko";
	o.module_name = "mod_t";
	o.command = "pmu-workload getpid 10";
	EXPECT_EQ(stap_pmu::vm::init_script(o).find("-f json"), std::string::npos);
	o.json_output = true;
	EXPECT_NE(stap_pmu::vm::init_script(o).find("stap-pmu-loader -f json -c 'pmu-workload getpid 10' "
						    "'/stap-pmu/mod_t.ko'"),
		  std::string::npos);
	o.at_boot = true;
	EXPECT_NE(stap_pmu::vm::init_script(o).find("stap-pmu-loader -f json -S 'mod_t'"),
		  std::string::npos);
}
