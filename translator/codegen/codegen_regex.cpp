// codegen_regex.cpp - the tables of the script's compiled regexes
// (sema's SemaResult::regexes) for runtime/stp_regex.h, and the limits that
// size each CPU's matcher scratch.
#include "translator/codegen/codegen_impl.h"

namespace stap_pmu::codegen_impl {

namespace {

const char *op_enum(regex::Op op)
{
	switch (op) {
	case regex::Op::Char: return "STP_RE_CHAR";
	case regex::Op::Split: return "STP_RE_SPLIT";
	case regex::Op::Jmp: return "STP_RE_JMP";
	case regex::Op::Save: return "STP_RE_SAVE";
	case regex::Op::Bol: return "STP_RE_BOL";
	case regex::Op::Eol: return "STP_RE_EOL";
	case regex::Op::Match: return "STP_RE_MATCH";
	}
	return "STP_RE_MATCH";
}

// "a, b, c" with a line break every per_line values
template <class T> std::string list(const T &values, size_t per_line)
{
	std::string out;
	size_t i = 0;
	for (auto v : values) {
		if (i)
			out += i % per_line ? ", " : ",\n\t";
		out += std::to_string(static_cast<unsigned long>(v));
		i++;
	}
	return out;
}

} // namespace

// The scratch of the matcher is sized by the largest regex (a script that
// only calls matched() has none: the state still exists).
void Emitter::regex_limits()
{
	if (sema_.regexes.empty() && !sema_.regex_submatches)
		return;
	size_t insns = 1, slots = 2, caps = 2;
	for (const regex::Program &p : sema_.regexes) {
		insns = std::max(insns, p.insns.size());
		slots = std::max(slots, p.slots());
		caps = std::max(caps, p.insns.size() * p.slots());
	}
	os_ << "#define STP_HAVE_REGEX 1\n"
	    << "#define STP_REGEX_MAXINSNS " << insns << "\n"
	    << "#define STP_REGEX_MAXSLOTS " << slots << "\n"
	    << "#define STP_REGEX_MAXCAPS " << caps << "\n";
}

void Emitter::regex_tables()
{
	if (sema_.regexes.empty())
		return;
	os_ << "/* regular expressions (runtime/stp_regex.h) */\n";
	for (size_t i = 0; i < sema_.regexes.size(); i++) {
		const regex::Program &p = sema_.regexes[i];
		std::string n = "stp_re" + std::to_string(i);
		os_ << "static const struct stp_regex_insn " << n << "_prog[] = {\n";
		for (const regex::Insn &in : p.insns)
			os_ << "\t{ " << op_enum(in.op) << ", " << in.x << ", " << in.y << " },\n";
		os_ << "};\n";
		os_ << "static const u32 " << n << "_sets[][8] = {\n";
		for (const regex::ByteSet &s : p.sets) {
			os_ << "\t{ ";
			for (size_t w = 0; w < s.size(); w++)
				os_ << (w ? ", " : "") << "0x" << std::hex << s[w] << std::dec;
			os_ << " },\n";
		}
		if (p.sets.empty())
			os_ << "\t{ 0 },\n";
		os_ << "};\n";
		if (p.has_dfa) {
			os_ << "static const u8 " << n << "_cls[256] = {\n\t"
			    << list(p.dfa.byte_class, 16) << "\n};\n";
			os_ << "static const u16 " << n << "_dfa[] = {\n\t" << list(p.dfa.next, 16)
			    << "\n};\n";
			os_ << "static const u8 " << n << "_accept[] = {\n\t" << list(p.dfa.accept, 16)
			    << "\n};\n";
		}
		os_ << "static const struct stp_regex " << n << " = {\n"
		    << "\t.prog = " << n << "_prog,\n"
		    << "\t.sets = " << n << "_sets,\n"
		    << "\t.ninsns = " << p.insns.size() << ",\n"
		    << "\t.nsub = " << p.nsub << ",\n";
		if (p.has_dfa)
			os_ << "\t.cls = " << n << "_cls,\n"
			    << "\t.dfa = " << n << "_dfa,\n"
			    << "\t.accept = " << n << "_accept,\n"
			    << "\t.nclasses = " << p.dfa.nclasses << ",\n";
		os_ << "};\n\n";
	}
}

} // namespace stap_pmu::codegen_impl
