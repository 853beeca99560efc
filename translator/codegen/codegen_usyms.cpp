// codegen_usyms.cpp - the user binaries' symbol and CFI tables of a module
// (runtime/stp_usym.h): struct stp_ubin stp_ubins_table[], one per binary
// the module names user addresses in.
#include <sstream>

#include "translator/codegen/codegen.h"

namespace stap_pmu {

namespace {

void loads_of(std::ostream &os, size_t i, const UserUnwindData &u)
{
	os << "static const struct stp_uload stp_uloads_" << i << "[] = {\n";
	for (const UserLoad &l : u.loads)
		os << "\t{0x" << std::hex << l.offset << "ULL, 0x" << l.vaddr << "ULL, 0x"
		   << l.filesz << "ULL},\n"
		   << std::dec;
	os << "\t{0, 0, 0}\n};\n";
}

// the names as one string of NUL-terminated names; offsets into it in off
std::string names_of(const UserUnwindData &u, std::vector<size_t> &off)
{
	std::string all;
	for (const UserSym &s : u.syms) {
		off.push_back(all.size());
		all += s.name;
		all.push_back('\0');
	}
	return all;
}

void syms_of(std::ostream &os, size_t i, const UserUnwindData &u)
{
	std::vector<size_t> off;
	std::string names = names_of(u, off);
	os << "static const char stp_unames_" << i << "[] =";
	for (size_t p = 0; p < names.size(); p += 64)
		os << "\n\t" << c_string(names.substr(p, 64));
	os << (names.empty() ? " \"\";\n" : ";\n");
	os << "static const struct stp_usym stp_usyms_" << i << "[] = {\n";
	for (size_t k = 0; k < u.syms.size(); k++)
		os << "\t{0x" << std::hex << u.syms[k].vaddr << "ULL, 0x"
		   << (u.syms[k].size > 0xffffffffull ? 0xffffffffull : u.syms[k].size) << ", "
		   << std::dec << off[k] << "},\n";
	os << "\t{0, 0, 0}\n};\n";
}

void cfi_of(std::ostream &os, size_t i, const UserUnwindData &u)
{
	os << "static const struct stp_ucfi stp_ucfi_" << i << "[] = {\n";
	for (const UserCfiRow &r : u.cfi) {
		const char *cfa = r.cfa == UserCfiRow::Cfa::Sp	 ? "STP_UCFA_SP"
				  : r.cfa == UserCfiRow::Cfa::Fp ? "STP_UCFA_FP"
								 : "STP_UCFA_UNKNOWN";
		const char *ra = r.ra == UserCfiRow::Ra::Saved	      ? "STP_URA_SAVED"
				 : r.ra == UserCfiRow::Ra::InRegister ? "STP_URA_INREG"
								      : "STP_URA_UNDEFINED";
		os << "\t{0x" << std::hex << r.start << "ULL, 0x" << r.len << std::dec << ", "
		   << r.cfa_off << ", " << r.ra_off << ", " << r.fp_off << ", " << cfa << ", "
		   << ra << ", " << (r.fp_saved ? 1 : 0) << "},\n";
	}
	os << "\t{0}\n};\n";
}

} // namespace

std::string emit_user_tables(const std::vector<UserUnwindData> &bins)
{
	if (bins.empty())
		return "";
	std::ostringstream os;
	os << "/* the user binaries whose addresses the module names (runtime/stp_usym.h) */\n"
	   << "#define STP_HAVE_USYMS 1\n";
	for (size_t i = 0; i < bins.size(); i++) {
		loads_of(os, i, bins[i]);
		syms_of(os, i, bins[i]);
		cfi_of(os, i, bins[i]);
	}
	os << "static struct stp_ubin stp_ubins_table[] = {\n";
	for (size_t i = 0; i < bins.size(); i++) {
		std::string n = std::to_string(i);
		os << "\t{ .path = " << c_string(bins[i].path) << ", .names = stp_unames_" << n
		   << ",\n\t  .loads = stp_uloads_" << n << ", .syms = stp_usyms_" << n
		   << ", .cfi = stp_ucfi_" << n << ",\n\t  .nloads = " << bins[i].loads.size()
		   << ", .nsyms = " << bins[i].syms.size() << ", .ncfi = " << bins[i].cfi.size()
		   << " },\n";
	}
	os << "};\n\n";
	return os.str();
}

} // namespace stap_pmu
