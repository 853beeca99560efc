// records.cpp - decoding /proc/<module>/records and the JSON form of a record.
#include "translator/run/records.h"

#include "translator/support/sysutil.h"

namespace stap_pmu::loader {

namespace {

constexpr size_t kMaxLine = 128;              // the frame line, '\n' included
constexpr uint64_t kMaxName = 1u << 16;       // bytes of a probe name
constexpr uint64_t kMaxText = 256ull << 20;   // bytes of one record's text

// Strict decimal: digits only, no sign, no leading zeros but "0", fits 64 bits.
bool parse_dec(std::string_view s, uint64_t &out)
{
	if (s.size() > 20 || (s.size() > 1 && s[0] == '0'))
		return false;
	return sys::parse_u64(s, out);
}

// Length of the valid UTF-8 sequence at s[i] (Unicode table 3-7), 0 if none.
size_t utf8_len(std::string_view s, size_t i)
{
	auto b = [&](size_t k) { return (unsigned char)s[i + k]; };
	auto cont = [&](size_t k, unsigned lo, unsigned hi) {
		return i + k < s.size() && b(k) >= lo && b(k) <= hi;
	};
	unsigned c = b(0);
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return cont(1, 0x80, 0xbf) ? 2 : 0;
	if (c == 0xe0)
		return cont(1, 0xa0, 0xbf) && cont(2, 0x80, 0xbf) ? 3 : 0;
	if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef)
		return cont(1, 0x80, 0xbf) && cont(2, 0x80, 0xbf) ? 3 : 0;
	if (c == 0xed) // no UTF-16 surrogates
		return cont(1, 0x80, 0x9f) && cont(2, 0x80, 0xbf) ? 3 : 0;
	if (c == 0xf0)
		return cont(1, 0x90, 0xbf) && cont(2, 0x80, 0xbf) && cont(3, 0x80, 0xbf) ? 4 : 0;
	if (c >= 0xf1 && c <= 0xf3)
		return cont(1, 0x80, 0xbf) && cont(2, 0x80, 0xbf) && cont(3, 0x80, 0xbf) ? 4 : 0;
	if (c == 0xf4) // nothing over U+10FFFF
		return cont(1, 0x80, 0x8f) && cont(2, 0x80, 0xbf) && cont(3, 0x80, 0xbf) ? 4 : 0;
	return 0;
}

} // namespace

bool RecordDecoder::feed(std::string_view data, std::vector<Record> &out)
{
	if (!error_.empty())
		return false;
	buf_.append(data);
	size_t pos = 0;
	for (;;) {
		std::string_view rest = std::string_view(buf_).substr(pos);
		size_t nl = rest.find('\n');
		if (nl == std::string_view::npos) {
			if (rest.size() >= kMaxLine) {
				error_ = "record header longer than " + std::to_string(kMaxLine) + " bytes";
				break;
			}
			break;
		}
		if (nl + 1 > kMaxLine) {
			error_ = "record header longer than " + std::to_string(kMaxLine) + " bytes";
			break;
		}
		std::string_view line = rest.substr(0, nl);
		std::string_view f[6];
		size_t nf = 0, start = 0;
		bool ok = true;
		for (size_t i = 0; i <= line.size(); i++) {
			if (i < line.size() && line[i] != ' ')
				continue;
			if (nf == 6) {
				ok = false;
				break;
			}
			f[nf++] = line.substr(start, i - start);
			start = i + 1;
		}
		uint64_t seq, cpu, ts, name_len, text_len;
		ok = ok && nf == 6 && parse_dec(f[0], seq) && parse_dec(f[1], cpu) && cpu <= UINT32_MAX &&
		     parse_dec(f[2], ts) && (f[3] == "o" || f[3] == "e") && parse_dec(f[4], name_len) &&
		     parse_dec(f[5], text_len) && name_len <= kMaxName && text_len <= kMaxText;
		if (!ok) {
			error_ = "malformed record header '" + std::string(line.substr(0, 100)) + "'";
			break;
		}
		size_t body = nl + 1;
		if (rest.size() - body < name_len + text_len)
			break; // the rest of this record has not arrived
		Record r;
		r.seq = seq;
		r.cpu = (unsigned)cpu;
		r.timestamp_ns = ts;
		r.error = f[3] == "e";
		r.probe = std::string(rest.substr(body, (size_t)name_len));
		r.text = std::string(rest.substr(body + (size_t)name_len, (size_t)text_len));
		out.push_back(std::move(r));
		pos += body + (size_t)(name_len + text_len);
	}
	buf_.erase(0, pos);
	return error_.empty();
}

std::string json_string(std::string_view s)
{
	static const char hex[] = "0123456789abcdef";
	std::string o;
	o.reserve(s.size() + 2);
	o += '"';
	for (size_t i = 0; i < s.size();) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"':
			o += "\\\"";
			break;
		case '\\':
			o += "\\\\";
			break;
		case '\n':
			o += "\\n";
			break;
		case '\t':
			o += "\\t";
			break;
		case '\r':
			o += "\\r";
			break;
		case '\b':
			o += "\\b";
			break;
		case '\f':
			o += "\\f";
			break;
		default:
			if (c < 0x20) {
				o += "\\u00";
				o += hex[c >> 4];
				o += hex[c & 15];
			} else if (size_t n = utf8_len(s, i)) {
				o.append(s.substr(i, n));
				i += n;
				continue;
			} else {
				o += "\\ufffd";
			}
		}
		i++;
	}
	o += '"';
	return o;
}

std::string record_json(const Record &r)
{
	return "{\"probe\":" + json_string(r.probe) + ",\"cpu\":" + std::to_string(r.cpu) +
	       ",\"timestamp_ns\":" + std::to_string(r.timestamp_ns) + ",\"seq\":" + std::to_string(r.seq) +
	       ",\"type\":\"" + (r.error ? "error" : "output") + "\",\"text\":" + json_string(r.text) + "}";
}

} // namespace stap_pmu::loader
