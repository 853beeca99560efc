// fat_emit.cpp - write the fat table as kernel C (docs/runtime.md shapes).
#include "pmu/fat_table.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace stap_pmu::pmu {
namespace {

// Sizes of the runtime's structs on x86_64 (see docs/runtime.md).
constexpr size_t match_size = 10; // u8, u16 x3, u8 x2, align 2
constexpr size_t event_size = 32; // u32, u64 x2, u32, u8, align 8
constexpr size_t row_size = 32;   // 3 pointers + unsigned int, align 8
constexpr size_t pointer_size = 8;

std::string c_ident(std::string_view s)
{
	std::string out;
	for (char c : s)
		out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
	return out;
}

std::string c_string(std::string_view s)
{
	std::string out = "\"";
	for (char c : s) {
		if (c == '"' || c == '\\')
			out += fmt::format("\\{}", c);
		else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
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

std::string flags_expr(const Encoding &e)
{
	std::vector<std::string_view> f;
	if (e.exclude_user)
		f.push_back("STP_EXCL_USER");
	if (e.exclude_kernel)
		f.push_back("STP_EXCL_KERNEL");
	if (e.exclude_hv)
		f.push_back("STP_EXCL_HV");
	if (e.exclude_guest)
		f.push_back("STP_EXCL_GUEST");
	if (e.exclude_host)
		f.push_back("STP_EXCL_HOST");
	if (f.empty())
		return "0";
	std::string out;
	for (auto name : f)
		out += out.empty() ? std::string(name) : fmt::format(" | {}", name);
	return out;
}

// For each row, the index of the first row with the same event vector.
std::vector<size_t> shared_event_arrays(const std::vector<Row> &rows)
{
	std::vector<size_t> owner(rows.size());
	for (size_t i = 0; i < rows.size(); ++i) {
		owner[i] = i;
		for (size_t j = 0; j < i; ++j)
			if (owner[j] == j && rows[j].events == rows[i].events) {
				owner[i] = j;
				break;
			}
	}
	return owner;
}

void emit_matches(std::string &out, const Row &row)
{
	out += fmt::format("static const struct stp_pmu_match stp_pmu_match_{}[] = {{\n",
			   c_ident(row.pmu));
	for (const auto &m : row.match)
		out += fmt::format("\t{{ {}, {}, {}, {}, {}, {} }},\n", vendor_macro(m.vendor),
				   m.family, m.model_min, m.model_max, m.stepping_min,
				   m.stepping_max);
	out += "};\n";
}

void emit_events(std::string &out, const Row &row)
{
	out += fmt::format("static const struct stp_pmu_event stp_pmu_events_{}[STP_NEVENTS] = {{\n",
			   c_ident(row.pmu));
	for (const auto &e : row.events)
		out += fmt::format("\t{{ .type = {}, .config = {}, .config1 = {}, .flags = {}, "
				   ".precise = {} }},\n",
				   e.type, c_hex(e.config), c_hex(e.config1), flags_expr(e),
				   e.precise_ip);
	out += "};\n";
}

void emit_rows(std::string &out, const FatTable &t, const std::vector<size_t> &owner)
{
	out += "static const struct stp_pmu_row stp_pmu_rows[] = {\n";
	for (size_t i = 0; i < t.rows.size(); ++i) {
		const Row &r = t.rows[i];
		std::string events = t.events.empty()
			? "NULL"
			: fmt::format("stp_pmu_events_{}", c_ident(t.rows[owner[i]].pmu));
		if (r.match.empty())
			out += fmt::format("\t{{ {}, NULL, 0, {} }}, /* nmatch 0: any CPU */\n",
					   c_string(r.pmu), events);
		else
			out += fmt::format("\t{{ {}, stp_pmu_match_{id}, ARRAY_SIZE(stp_pmu_match_{id}), "
					   "{} }},\n",
					   c_string(r.pmu), events, fmt::arg("id", c_ident(r.pmu)));
	}
	out += "};\n";
}

void emit_names(std::string &out, const FatTable &t)
{
	out += "static const char *const stp_pmu_event_names[STP_NEVENTS] = {\n";
	for (const auto &e : t.events)
		out += fmt::format("\t{},\n", c_string(e));
	out += "};\n";
}

} // namespace

std::string emit_pmu_tables(const FatTable &t)
{
	std::string out = "/* --- PMU tables (pmu/ fat table builder) --- */\n";
	for (const auto &d : t.dropped)
		out += fmt::format("/* no row for {}: {} */\n", c_comment(d.pmu),
				  c_comment(d.reason));
	for (const auto &r : t.rows)
		if (!r.match.empty())
			emit_matches(out, r);
	auto owner = shared_event_arrays(t.rows);
	if (!t.events.empty())
		for (size_t i = 0; i < t.rows.size(); ++i)
			if (owner[i] == i)
				emit_events(out, t.rows[i]);
	emit_rows(out, t, owner);
	emit_names(out, t);
	return out;
}

size_t pmu_tables_size(const FatTable &t)
{
	size_t bytes = t.rows.size() * row_size + t.events.size() * pointer_size;
	auto owner = shared_event_arrays(t.rows);
	for (size_t i = 0; i < t.rows.size(); ++i) {
		const Row &r = t.rows[i];
		bytes += r.match.size() * match_size + r.pmu.size() + 1;
		if (owner[i] == i)
			bytes += r.events.size() * event_size;
	}
	for (const auto &e : t.events)
		bytes += e.size() + 1;
	return bytes;
}

} // namespace stap_pmu::pmu
