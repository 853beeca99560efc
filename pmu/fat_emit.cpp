// fat_emit.cpp - write the fat table as kernel C (docs/runtime.md, "PMU
// tables"), in the compact layout: one const object stp_pmu_data holding
//   enc[]          distinct encodings, 8 bytes each (ext[] for the rare
//                  ones that do not fit: config1, config >= 2^48, type > 255)
//   match[]        every row's CPU match entries, in row order (x86: 4 bytes)
//   vec[][NEVENTS] distinct event vectors: an encoding index per event
//   rows[]         { nmatch, same, core, vec }: 2 bytes, no pointers
//   row_names      the row names front-coded in one string, each name's
//                  last byte marked with bit 7
//   event_names    the event names in one string, NUL separated
// plus stp_pmu_init_tables(), which hands the members to the runtime.
#include "pmu/fat_table.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

namespace stap_pmu::pmu {
namespace {

constexpr size_t enc_size = 8;      // u32, u16, u8, u8
constexpr size_t enc_align = 4;
constexpr size_t ext_size = 24;     // u64 x2, u32, u8, align 8
constexpr size_t ext_align = 8;
constexpr size_t row_size = 2;      // u8 nmatch:5, same:1, core:2; u8 vec
constexpr size_t row_nmatch_max = 31;
constexpr size_t match_size_x86 = 4; // u8 x4, align 1
constexpr size_t match_size_arm = 8; // u8 x2, u16 x2, u8 x2, align 2
constexpr size_t name_max = 47;     // the runtime decodes names into 48 bytes

std::string c_string(std::string_view s)
{
	std::string out = "\"";
	for (char c : s) {
		if (c == '"' || c == '\\')
			out += fmt::format("\\{}", c);
		else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
			out += fmt::format("\\{:03o}", static_cast<unsigned char>(c));
		else
			out += c;
	}
	return out + "\"";
}

// Text safe inside /* */.
std::string c_comment(std::string_view s)
{
	std::string out(s);
	for (size_t pos; (pos = out.find("*/")) != std::string::npos;)
		out.replace(pos, 2, "* /");
	return out;
}

std::string c_hex(uint64_t v)
{
	return v ? fmt::format("{:#x}", v) : "0";
}

const char *vendor_macro(const std::string &vendor)
{
	if (vendor == "GenuineIntel")
		return "STP_VENDOR_INTEL";
	if (vendor == "AuthenticAMD")
		return "STP_VENDOR_AMD";
	if (vendor == "ARM") // family = implementer, model = part, stepping = variant<<4|rev
		return "STP_VENDOR_ARM";
	return "0 /* unknown vendor */";
}

// STP_CORE_* of a row: its entries' core type (the same for all of them).
const char *core_macro(const Row &r)
{
	unsigned t = r.match.empty() ? 0 : r.match.front().core_type;
	for (const CpuMatch &m : r.match)
		if (m.core_type != t)
			// internal invariant: a hybrid PMU is one core type
			throw std::logic_error("row " + r.pmu + " mixes core types");
	if (t == core_type_atom)
		return "STP_CORE_ATOM";
	if (t == core_type_core)
		return "STP_CORE_CORE";
	if (t)
		throw std::logic_error("row " + r.pmu + " has an unknown core type");
	return "STP_CORE_ANY";
}

// Whether row i reuses row i-1's match entries (the core types of one
// hybrid part): the runtime then takes the previous row's entries.
bool same_match(const FatTable &t, size_t i)
{
	if (i == 0 || t.rows[i].match.empty())
		return false;
	const auto &a = t.rows[i].match, &b = t.rows[i - 1].match;
	return std::equal(a.begin(), a.end(), b.begin(), b.end(),
			  [](const CpuMatch &x, const CpuMatch &y) {
				  CpuMatch z = y;
				  z.core_type = x.core_type;
				  return x == z;
			  });
}

unsigned flag_bits(const Encoding &e)
{
	return (e.exclude_user ? 1u : 0) | (e.exclude_kernel ? 2u : 0) | (e.exclude_hv ? 4u : 0) |
	       (e.exclude_guest ? 8u : 0) | (e.exclude_host ? 16u : 0);
}

std::string flags_expr(const Encoding &e, bool ext)
{
	static const char *const names[] = {"STP_EXCL_USER", "STP_EXCL_KERNEL", "STP_EXCL_HV",
					    "STP_EXCL_GUEST", "STP_EXCL_HOST"};
	std::string out;
	unsigned bits = flag_bits(e);
	for (unsigned i = 0; i < 5; i++)
		if (bits & (1u << i))
			out += (out.empty() ? "" : " | ") + std::string(names[i]);
	if (e.precise_ip)
		out += (out.empty() ? "" : " | ") + fmt::format("STP_ENC_PRECISE({})", e.precise_ip);
	if (ext)
		out += (out.empty() ? "" : " | ") + std::string("STP_ENC_EXT");
	return out.empty() ? "0" : out;
}

// An encoding needs the ext[] entry when its 8-byte form cannot hold it.
bool needs_ext(const Encoding &e)
{
	return e.config1 || e.config >> 48 || e.type > 0xff;
}

bool is_arm(const FatTable &t)
{
	for (const Row &r : t.rows)
		for (const CpuMatch &m : r.match)
			return m.vendor == "ARM";
	return false;
}

// Checks what the packed forms hold; the tables come from pmu/, so a value
// out of range is a bug there.
void check_match(const CpuMatch &m, bool arm)
{
	bool ok = arm ? m.family <= 0xff && m.model_max <= 0xffff && m.stepping_max <= 0xff
		      : m.family < 64 && m.model_max <= 0xff && m.stepping_max <= 15;
	if (!ok || m.model_min > m.model_max || m.stepping_min > m.stepping_max)
		// internal invariant: the match tables are pmu/'s own, no script reaches this
		throw std::logic_error(fmt::format("CPU match {} {}/{}-{} does not fit the "
						   "packed match entry",
						   m.vendor, m.family, m.model_min, m.model_max));
}

// Everything the emitter and the size computation share.
struct Layout {
	std::vector<Encoding> enc;               // distinct encodings
	std::vector<std::vector<size_t>> vec;    // distinct vectors of enc indexes
	std::vector<size_t> row_vec;             // per row: its vector
	std::vector<bool> row_same;              // per row: shares the previous row's entries
	std::vector<size_t> ext;                 // enc indexes needing ext[]
	size_t nmatch = 0;
	bool arm = false;
	bool wide = false;                       // enc indexes need u16
	std::string row_names;                   // without the final NUL
	std::string event_names;                 // idem
	size_t bytes = 0;                        // sizeof(stp_pmu_data)
};

size_t align_up(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

Layout layout(const FatTable &t)
{
	Layout l;
	l.arm = is_arm(t);
	for (const Row &r : t.rows) {
		std::vector<size_t> v;
		for (const Encoding &e : r.events) {
			auto it = std::find(l.enc.begin(), l.enc.end(), e);
			v.push_back(static_cast<size_t>(it - l.enc.begin()));
			if (it == l.enc.end())
				l.enc.push_back(e);
		}
		auto it = std::find(l.vec.begin(), l.vec.end(), v);
		l.row_vec.push_back(static_cast<size_t>(it - l.vec.begin()));
		if (it == l.vec.end())
			l.vec.push_back(std::move(v));
		if (r.match.size() > row_nmatch_max)
			// internal invariant: pmu/'s match tables give a PMU a few entries
			throw std::logic_error("more than 31 CPU match entries in row " + r.pmu);
		for (const CpuMatch &m : r.match)
			check_match(m, l.arm);
		core_macro(r);
		l.row_same.push_back(same_match(t, l.row_same.size()));
		if (!l.row_same.back())
			l.nmatch += r.match.size();
	}
	if (t.rows.size() > 0xff)
		// internal invariant: one row per known PMU plus perf, far below 255
		throw std::logic_error("more than 255 PMU rows");
	for (size_t i = 0; i < l.enc.size(); i++)
		if (needs_ext(l.enc[i]))
			l.ext.push_back(i);
	l.wide = l.enc.size() > 0xff;
	if (l.wide && l.enc.size() > 0xffff)
		// internal invariant, not a checked limit: only a script with thousands
		// of distinct @pmu events would get near it (sema does not cap them)
		throw std::logic_error("more than 65535 distinct PMU encodings");

	// front coding: 1 + (bytes shared with the previous name), the rest
	// (at least one byte) with bit 7 set on its last byte
	std::string prev;
	for (const Row &r : t.rows) {
		if (r.pmu.empty() || r.pmu.size() > name_max)
			// internal invariant: row names are pmu/'s PMU names, none that long
			throw std::logic_error("PMU row name '" + r.pmu + "' is empty or too long");
		for (char c : r.pmu)
			if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
				// internal invariant: PMU names are printable ASCII
				throw std::logic_error("PMU row name '" + r.pmu + "' is not ASCII");
		size_t k = 0;
		while (k < prev.size() && k + 1 < r.pmu.size() && prev[k] == r.pmu[k])
			k++;
		l.row_names += static_cast<char>(1 + k);
		l.row_names += r.pmu.substr(k);
		l.row_names.back() = static_cast<char>(l.row_names.back() | 0x80);
		prev = r.pmu;
	}
	for (size_t i = 0; i < t.events.size(); i++) {
		if (i)
			l.event_names += '\0';
		l.event_names += t.events[i];
	}

	// members in emission order, each at its alignment
	size_t n = 0, align = 1;
	auto member = [&](size_t count, size_t size, size_t a) {
		if (!count)
			return;
		n = align_up(n, a) + count * size;
		align = std::max(align, a);
	};
	member(l.ext.size(), ext_size, ext_align);
	member(l.enc.size(), enc_size, enc_align);
	member(l.nmatch, l.arm ? match_size_arm : match_size_x86, l.arm ? 2 : 1);
	member(t.events.empty() ? 0 : l.vec.size() * t.events.size(), l.wide ? 2 : 1,
	       l.wide ? 2 : 1);
	member(t.rows.size(), row_size, 1);
	member(l.row_names.size() + 1, 1, 1);
	member(l.event_names.size() + 1, 1, 1);
	l.bytes = align_up(n, align);
	return l;
}

// rows[]: { nmatch, same, core, vec } per row.
std::string emit_rows(const FatTable &t, const Layout &l)
{
	std::string out = "\t.rows = {\n";
	for (size_t i = 0; i < t.rows.size(); i++) {
		const Row &r = t.rows[i];
		bool same = l.row_same[i];
		out += fmt::format("\t\t{{ {}, {}, {}, {} }}, /* {}{} */\n",
				   same ? 0 : r.match.size(), same ? 1 : 0, core_macro(r),
				   l.row_vec[i], c_comment(r.pmu),
				   r.match.empty() ? ": any CPU"
				   : same	   ? ": the previous row's CPUs"
						   : "");
	}
	return out + "\t},\n";
}

} // namespace

std::string emit_pmu_tables(const FatTable &t)
{
	Layout l = layout(t);
	std::string out = "/* --- PMU tables (pmu/ fat table builder) --- */\n";
	for (const auto &d : t.dropped)
		out += fmt::format("/* no row for {}: {} */\n", c_comment(d.pmu), c_comment(d.reason));
	size_t nev = t.events.size();
	bool have_vec = nev && !l.vec.empty();

	out += fmt::format("/* {} bytes: {} rows, {} encodings, {} match entries */\n", l.bytes,
			   t.rows.size(), l.enc.size(), l.nmatch);
	out += "static const struct {\n";
	if (!l.ext.empty())
		out += fmt::format("\tstruct stp_pmu_event_ext ext[{}];\n", l.ext.size());
	if (!l.enc.empty())
		out += fmt::format("\tstruct stp_pmu_event enc[{}];\n", l.enc.size());
	if (l.nmatch)
		out += fmt::format("\tstruct stp_pmu_match match[{}];\n", l.nmatch);
	if (have_vec)
		out += fmt::format("\t{} vec[{}][STP_NEVENTS];\n", l.wide ? "u16" : "u8", l.vec.size());
	out += fmt::format("\tstruct stp_pmu_row rows[{}];\n", t.rows.size());
	out += fmt::format("\tchar row_names[{}];\n", l.row_names.size() + 1);
	out += fmt::format("\tchar event_names[{}];\n", l.event_names.size() + 1);
	out += "} stp_pmu_data = {\n";

	if (!l.ext.empty()) {
		out += "\t.ext = {\n";
		for (size_t i : l.ext) {
			const Encoding &e = l.enc[i];
			out += fmt::format("\t\t{{ .config = {}, .config1 = {}, .type = {}, .enc = {} }},\n",
					   c_hex(e.config), c_hex(e.config1), e.type, i);
		}
		out += "\t},\n";
	}
	if (!l.enc.empty()) {
		out += "\t.enc = {\n";
		for (size_t i = 0; i < l.enc.size(); i++) {
			const Encoding &e = l.enc[i];
			bool ext = needs_ext(e);
			out += fmt::format("\t\t{{ {}, {}, {}, {} }}, /* {} */\n",
					   ext ? "0" : c_hex(e.config & 0xffffffffu),
					   ext ? "0" : c_hex(e.config >> 32),
					   ext ? 0 : e.type, flags_expr(e, ext), i);
		}
		out += "\t},\n";
	}
	if (l.nmatch) {
		out += "\t.match = {\n";
		for (size_t i = 0; i < t.rows.size(); i++) {
			const Row &r = t.rows[i];
			if (r.match.empty() || l.row_same[i])
				continue;
			out += fmt::format("\t\t/* {} */\n", c_comment(r.pmu));
			for (const CpuMatch &m : r.match)
				out += fmt::format("\t\tSTP_PMU_MATCH({}, {}, {}, {}, {}, {}),\n",
						   vendor_macro(m.vendor), m.family, m.model_min,
						   m.model_max, m.stepping_min, m.stepping_max);
		}
		out += "\t},\n";
	}
	if (have_vec) {
		out += "\t.vec = {\n";
		for (const auto &v : l.vec) {
			std::string items;
			for (size_t x : v)
				items += (items.empty() ? "" : ", ") + std::to_string(x);
			out += fmt::format("\t\t{{ {} }},\n", items);
		}
		out += "\t},\n";
	}
	out += emit_rows(t, l);
	out += fmt::format("\t.row_names = {},\n", c_string(l.row_names));
	out += fmt::format("\t.event_names = {},\n", c_string(l.event_names));
	out += "};\n\n";

	// assignments, not an initialized object: no second table of pointers
	out += "static int stp_pmu_init_tables(struct stp_probe *probes, unsigned int nprobes)\n{\n";
	if (!l.ext.empty())
		out += fmt::format("\tstp_pmu_tab.ext = stp_pmu_data.ext;\n\tstp_pmu_tab.next = {};\n",
				   l.ext.size());
	if (!l.enc.empty())
		out += "\tstp_pmu_tab.enc = stp_pmu_data.enc;\n";
	if (l.nmatch)
		out += "\tstp_pmu_tab.match = stp_pmu_data.match;\n";
	if (have_vec)
		out += fmt::format("\tstp_pmu_tab.{} = &stp_pmu_data.vec[0][0];\n",
				   l.wide ? "vec16" : "vec8");
	out += "\tstp_pmu_tab.rows = stp_pmu_data.rows;\n"
	       "\tstp_pmu_tab.nrows = ARRAY_SIZE(stp_pmu_data.rows);\n"
	       "\tstp_pmu_tab.row_names = stp_pmu_data.row_names;\n"
	       "\tstp_pmu_tab.event_names = stp_pmu_data.event_names;\n"
	       "\treturn stp_pmu_init(probes, nprobes);\n}\n";
	return out;
}

size_t pmu_tables_size(const FatTable &t)
{
	return layout(t).bytes;
}

} // namespace stap_pmu::pmu
