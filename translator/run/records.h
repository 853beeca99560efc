// records.h - the framed records of /proc/<module>/records and their JSON form
// (--output-format json; docs/runtime.md, "Output records"). libc/libstdc++
// only: linked into the static guest loader too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stap_pmu::loader {

// One output record: a probe hit's prints, or a script error message.
struct Record {
	uint64_t seq = 0;          // 1, 2, ...: the order the module delivers them in
	unsigned cpu = 0;          // CPU that wrote it
	uint64_t timestamp_ns = 0; // CLOCK_MONOTONIC (ktime_get_mono_fast_ns) when written
	bool error = false;        // an "ERROR: ..." message rather than script output
	std::string probe;         // probe point as written in the script ("" : none)
	std::string text;          // the bytes printed, verbatim
};

// Decodes the records file's stream: per record a line
// "SEQ CPU TIMESTAMP_NS TYPE NAME_LEN TEXT_LEN\n" (TYPE o or e, decimal
// numbers, single spaces), then NAME_LEN bytes of probe name and TEXT_LEN
// bytes of text. Input may arrive in pieces of any size.
class RecordDecoder {
public:
	// Appends the records completed by data to out. False (and error() set)
	// when the stream is malformed; the decoder then stays failed.
	bool feed(std::string_view data, std::vector<Record> &out);
	// Bytes of an incomplete record held back.
	size_t pending() const { return buf_.size(); }
	const std::string &error() const { return error_; }

private:
	std::string buf_;
	std::string error_;
};

// A JSON string literal (quotes included) for bytes that should be UTF-8:
// ", \ and control characters are escaped (\n \t \r \b \f, else \u00XX), valid
// UTF-8 is kept as is, and every byte that does not start a valid UTF-8
// sequence (overlong forms, surrogates and code points over U+10FFFF included)
// becomes \ufffd.
std::string json_string(std::string_view s);

// {"probe":...,"cpu":N,"timestamp_ns":N,"seq":N,"type":"output"|"error","text":...}
// on one line, without a newline.
std::string record_json(const Record &r);

} // namespace stap_pmu::loader
