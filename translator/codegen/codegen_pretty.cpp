// codegen_pretty.cpp - $x$ and $x$$: the formatting of a pretty-printed
// target variable, generated from the layout each probe point's kernel
// facts gave (sema): a sequence of fault-safe reads and text pieces
// (runtime/stp_tvar.h stp_pp_*) into the expression's string.
#include "translator/codegen/codegen_impl.h"

namespace stap_pmu::codegen_impl {

namespace {

// The most elements of one array $x$$ prints ("..." after them), and the
// most members and elements of one variable: beyond a few hundred the
// string (MAXSTRINGLEN) is full anyway.
constexpr uint64_t max_elements = 8;
constexpr int max_pieces = 256;

// The C statements printing one value, with the text between reads merged.
class PrettyCode {
public:
	explicit PrettyCode(bool deep) : deep_(deep) {}

	void lit(const std::string &s) { pending_ += s; }

	void value(const TypeMember &m, int64_t off);

	std::string take()
	{
		flush();
		return std::move(out_);
	}

private:
	void flush()
	{
		if (!pending_.empty())
			out_ += "\tstp_pp_lit(d, n, " + c_string(pending_) + ");\n";
		pending_.clear();
	}

	void read(const std::string &call)
	{
		flush();
		out_ += "\tif (!" + call + ")\n\t\treturn;\n";
	}

	void array(const TypeMember &m, int64_t off);

	bool deep_;
	int pieces_ = 0;
	std::string pending_, out_;
};

// "a + off": the address of a piece
std::string at(int64_t off)
{
	return off ? "a + " + std::to_string(off) : "a";
}

int int_kind(TypeMember::Kind k)
{
	return k == TypeMember::Pointer ? 2 : k == TypeMember::Unsigned ? 1 : 0;
}

void PrettyCode::value(const TypeMember &m, int64_t off)
{
	pieces_++;
	switch (m.kind) {
	case TypeMember::Signed: case TypeMember::Unsigned: case TypeMember::Enum:
	case TypeMember::Pointer:
		if (m.size != 1 && m.size != 2 && m.size != 4 && m.size != 8) {
			lit("?");
			return;
		}
		read("stp_pp_int(c, d, n, " + at(off) + ", " + std::to_string(m.size) + ", " +
		     std::to_string(int_kind(m.kind)) + ")");
		return;
	case TypeMember::CharArray:
		read("stp_pp_chars(c, d, n, " + at(off) + ", " + std::to_string(m.count) + ")");
		return;
	case TypeMember::Array:
		array(m, off);
		return;
	case TypeMember::Struct: case TypeMember::Union:
		if (!m.expanded) {
			lit("{...}");
			return;
		}
		lit("{");
		for (size_t i = 0; i < m.members.size(); i++) {
			if (pieces_ >= max_pieces) { // the rest: "..."
				lit(i ? ", ..." : "...");
				break;
			}
			lit((i ? ", ." : ".") + m.members[i].name + "=");
			value(m.members[i], off + m.members[i].offset);
		}
		lit("}");
		return;
	case TypeMember::Other:
		lit("?");
		return;
	}
}

// "[...]" in $x$; "[1, 2, ...]" in $x$$ (max_elements at most)
void PrettyCode::array(const TypeMember &m, int64_t off)
{
	if (!deep_ || m.members.empty() || !m.count || !m.members[0].size) {
		lit("[...]");
		return;
	}
	const TypeMember &el = m.members[0];
	lit("[");
	for (uint64_t i = 0; i < m.count && i < max_elements; i++) {
		if (pieces_ >= max_pieces) {
			lit(i ? ", ...]" : "...]");
			return;
		}
		if (i)
			lit(", ");
		value(el, off + static_cast<int64_t>(i * el.size));
	}
	lit(m.count > max_elements ? ", ...]" : "]");
}

// One value's printing function: the layout p of value v (a struct's or
// array's address, or the scalar itself). A NULL pointer to a struct
// prints 0x0.
std::string value_function(const std::string &fn, const KernelFacts::Pretty &p, bool deep)
{
	const TypeMember &r = p.root;
	std::string code;
	switch (r.kind) {
	case TypeMember::Signed: case TypeMember::Unsigned: case TypeMember::Enum:
	case TypeMember::Pointer:
		code = "\tstp_pp_val(d, n, v, " + std::to_string(int_kind(r.kind)) + ");\n";
		break;
	default: {
		PrettyCode pc(deep);
		pc.value(r, 0);
		code = pc.take();
		if (p.pointee)
			code = "\tif (!a) {\n\t\tstp_pp_lit(d, n, \"0x0\");\n\t\treturn;\n\t}\n" + code;
	}
	}
	return "/* " + r.type + (p.pointee ? " *" : "") + " */\nstatic void " + fn +
	       "(struct stp_context *c, char *d, int *n, s64 v)\n{\n"
	       "\tunsigned long a = (unsigned long)v;\n\n\t(void)a;\n\t(void)c;\n" +
	       code + "}\n\n";
}

// The register value of a scalar (or pointer) root r, as read at the probe
std::string extended(const std::string &raw, const TypeMember &r)
{
	bool scalar = r.kind == TypeMember::Signed || r.kind == TypeMember::Unsigned ||
		      r.kind == TypeMember::Enum;
	if (!scalar || (r.size != 1 && r.size != 2 && r.size != 4))
		return "(s64)" + raw;
	return "stp_tvar_extend(" + raw + ", " + std::to_string(r.size) + ", " +
	       (r.kind == TypeMember::Unsigned ? "0" : "1") + ")";
}

std::string pp_name(size_t b, size_t k, int depth)
{
	std::string key = k == pretty_parms ? "parms" : k == pretty_return ? "return" : std::to_string(k);
	return std::to_string(b) + "_" + key + "_" + std::to_string(depth);
}

} // namespace

std::string Emitter::pretty_ref(const Expr &e)
{
	auto [k, depth] = sema_.pretty_of.at(&e);
	pretty_.insert({body_, k, depth});
	may_fail_ = true;
	std::string v = k >= pretty_return ? "0" : tvar_ref(e);
	return "stp_pp_" + pp_name(body_, k, depth) + "(c, " + temp() + ", " + v + ")";
}

// The body of point i's part of a $$parms$ (or $$return$) printing function.
std::string Emitter::pretty_point_all(size_t i, size_t k, int depth)
{
	const ResolvedPoint &p = sema_.instances[i].point;
	std::string base = "stp_ppv_" + std::to_string(i) + "_" + (k == pretty_parms ? "p" : "r");
	std::string code;
	if (k == pretty_return) {
		auto it = p.pretty_return.find(depth);
		if (it == p.pretty_return.end())
			return ""; // void: ""
		if (!it->second)
			return "\t\tstp_pp_lit(dst, &n, \"return=?\");\n";
		std::string fn = base + "_" + std::to_string(depth);
		os_ << value_function(fn, *it->second, depth > 1);
		return "\t\tstp_pp_lit(dst, &n, \"return=\");\n\t\tif (c->regs)\n\t\t\t" + fn +
		       "(c, dst, &n, " + extended("regs_return_value(c->regs)", it->second->root) +
		       ");\n";
	}
	auto it = p.pretty_parms.find(depth);
	if (it == p.pretty_parms.end() || !p.func)
		return "";
	bool tp = p.kind == ProbeKind::Tracepoint;
	// a tracepoint's arguments, or the list $$parms, $$vars or $$locals chose
	size_t count = tp ? p.func->params.size() : p.parms.size();
	for (size_t j = 0; j < it->second.size() && j < count; j++) {
		const auto &l = it->second[j];
		std::string name = tp ? p.func->params[j].name : p.parms[j].first;
		std::string lead = (j ? " " : "") + name + "=";
		if (!l || (!tp && !p.parms[j].second)) {
			code += "\t\tstp_pp_lit(dst, &n, " + c_string(lead + "?") + ");\n";
			continue;
		}
		std::string fn = base + std::to_string(j) + "_" + std::to_string(depth);
		os_ << value_function(fn, *l, depth > 1);
		std::string raw = tp ? "c->entry[" + std::to_string(j) + "]" : "raw";
		std::string call = fn + "(c, dst, &n, " + extended(raw, l->root) + ");\n";
		if (tp)
			code += "\t\tstp_pp_lit(dst, &n, " + c_string(lead) + ");\n\t\t" + call;
		else // read where it is (an argument register, a DWARF location)
			code += "\t\tif (stp_parm_value(c, " + std::to_string(j) +
				", &raw)) {\n\t\t\tstp_pp_lit(dst, &n, " + c_string(lead) +
				");\n\t\t\t" + call + "\t\t} else {\n\t\t\tstp_pp_lit(dst, &n, " +
				c_string(lead + "?") + ");\n\t\t}\n";
		code += "\t\tif (c->error)\n\t\t\treturn dst;\n";
	}
	std::string decl = !tp && !code.empty() ? "\t\tu64 raw;\n\n" : "";
	std::string guard = tp ? "!c->entry" : "!c->regs";
	return decl + "\t\tif (" + guard +
	       ") {\n\t\t\tstp_error(c, \"$$parms not available here\");\n"
	       "\t\t\treturn dst;\n\t\t}\n" + code;
}

// Declarations of the printing functions the bodies call (defined after
// the probe table, whose entries tell the points apart)
void Emitter::pretty_decls()
{
	for (const auto &[b, k, depth] : pretty_)
		os_ << "static const char *stp_pp_" << pp_name(b, k, depth)
		    << "(struct stp_context *c, char *dst, s64 v);\n";
}

void Emitter::pretty_functions()
{
	for (const auto &[b, k, depth] : pretty_) {
		std::string pick;
		for (size_t i = 0; i < sema_.instances.size(); i++) {
			const ResolvedPoint &p = sema_.instances[i].point;
			if (sema_.instances[i].body != b)
				continue;
			std::string part;
			if (k >= pretty_return) {
				part = pretty_point_all(i, k, depth);
			} else if (auto it = p.pretty.find({k, depth}); it != p.pretty.end()) {
				std::string fn = "stp_ppv_" + std::to_string(i) + "_" + pp_name(b, k, depth);
				os_ << value_function(fn, it->second, depth > 1);
				part = "\t\t" + fn + "(c, dst, &n, v);\n";
			}
			if (!part.empty())
				pick += "\tif (c->probe == &stp_probes[" + std::to_string(i) + "]) {\n" +
					part + "\t}\n";
		}
		os_ << "static const char *stp_pp_" << pp_name(b, k, depth)
		    << "(struct stp_context *c, char *dst, s64 v)\n{\n\tint n = 0;\n\n"
		    << "\t(void)v;\n\tdst[0] = '\\0';\n\tif (c->error || !c->probe)\n\t\treturn dst;\n"
		    << pick << "\treturn dst;\n}\n\n";
	}
}

} // namespace stap_pmu::codegen_impl
