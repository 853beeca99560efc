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
	if (++pieces_ > max_pieces) {
		lit(pieces_ == max_pieces + 1 ? "..." : "");
		return;
	}
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
		if (i)
			lit(", ");
		value(el, off + static_cast<int64_t>(i * el.size));
	}
	lit(m.count > max_elements ? ", ...]" : "]");
}

// The printing of one point's layout p, the value read v (a struct's or
// array's address, or the scalar itself).
std::string point_code(const KernelFacts::Pretty &p, bool deep)
{
	const TypeMember &r = p.root;
	PrettyCode pc(deep);
	switch (r.kind) {
	case TypeMember::Signed: case TypeMember::Unsigned: case TypeMember::Enum:
	case TypeMember::Pointer:
		return "\tstp_pp_val(d, n, v, " + std::to_string(int_kind(r.kind)) + ");\n";
	default:
		pc.value(r, 0);
		return pc.take();
	}
}

} // namespace

std::string Emitter::pretty_ref(const Expr &e)
{
	auto [k, depth] = sema_.pretty_of.at(&e);
	pretty_.insert({body_, k, depth});
	may_fail_ = true;
	return "stp_pp_" + std::to_string(body_) + "_" + std::to_string(k) + "_" +
	       std::to_string(depth) + "(c, " + temp() + ", " + tvar_ref(e) + ")";
}

void Emitter::pretty_functions()
{
	for (const auto &[b, k, depth] : pretty_) {
		std::string name = std::to_string(b) + "_" + std::to_string(k) + "_" +
				   std::to_string(depth);
		std::string pick;
		for (size_t i = 0; i < sema_.instances.size(); i++) {
			const ResolvedPoint &p = sema_.instances[i].point;
			auto it = p.pretty.find({k, depth});
			if (sema_.instances[i].body != b || it == p.pretty.end())
				continue;
			std::string fn = "stp_ppi_" + std::to_string(i) + "_" + std::to_string(k) + "_" +
					 std::to_string(depth);
			os_ << "/* " << p.name << ": " << it->second.root.type << " */\n"
			    << "static void " << fn
			    << "(struct stp_context *c, char *d, int *n, s64 v)\n{\n"
			    << "\tunsigned long a = (unsigned long)v;\n\n\t(void)a;\n"
			    << point_code(it->second, depth > 1) << "}\n\n";
			pick += "\tif (c->probe->tvars == stp_tvars_" + std::to_string(i) + ")\n\t\t" + fn +
				"(c, dst, &n, v);\n";
		}
		os_ << "static const char *stp_pp_" << name
		    << "(struct stp_context *c, char *dst, s64 v)\n{\n\tint n = 0;\n\n"
		    << "\tdst[0] = '\\0';\n\tif (c->error || !c->probe)\n\t\treturn dst;\n"
		    << pick << "\treturn dst;\n}\n\n";
	}
}

} // namespace stap_pmu::codegen_impl
