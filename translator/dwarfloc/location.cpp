// location.cpp - DWARF location expressions compiled at one probe address:
// a small symbolic stack machine whose values are constants, register plus
// offset, static addresses, or one memory read of either.
#include "translator/dwarfloc/location.h"

#include <dwarf.h>

#include <cstdio>
#include <cstdlib>

namespace stap_pmu::dwarfloc {

namespace {

const char *const x86_regs[] = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
				"r9",  "r10", "r11", "r12", "r13", "r14", "r15", "ra"};

// x86-64 register names as assembly spells them, by DWARF number: the
// 32-, 16- and 8-bit names of the same register.
struct X86Alias {
	const char *e, *w, *b;
};
const X86Alias x86_alias[] = {
	{"eax", "ax", "al"},	 {"edx", "dx", "dl"},	  {"ecx", "cx", "cl"},	   {"ebx", "bx", "bl"},
	{"esi", "si", "sil"},	 {"edi", "di", "dil"},	  {"ebp", "bp", "bpl"},	   {"esp", "sp", "spl"},
	{"r8d", "r8w", "r8b"},	 {"r9d", "r9w", "r9b"},	  {"r10d", "r10w", "r10b"}, {"r11d", "r11w", "r11b"},
	{"r12d", "r12w", "r12b"}, {"r13d", "r13w", "r13b"}, {"r14d", "r14w", "r14b"}, {"r15d", "r15w", "r15b"},
};

// Operations a Location cannot express, by what they mean for the user.
struct Refused {
	int op;
	const char *name, *why;
};
const Refused refused_ops[] = {
	{DW_OP_entry_value, "DW_OP_entry_value", "known only to the caller"},
	{DW_OP_GNU_entry_value, "DW_OP_GNU_entry_value", "known only to the caller"},
	{DW_OP_implicit_pointer, "DW_OP_implicit_pointer", "a pointer to a value that is not in memory"},
	{DW_OP_GNU_implicit_pointer, "DW_OP_GNU_implicit_pointer",
	 "a pointer to a value that is not in memory"},
	{DW_OP_GNU_parameter_ref, "DW_OP_GNU_parameter_ref", "known only to the caller"},
	{DW_OP_bit_piece, "DW_OP_bit_piece", "split into bit fields"},
	{DW_OP_xderef, "DW_OP_xderef", "in another address space"},
	{DW_OP_form_tls_address, "DW_OP_form_tls_address", "thread-local storage"},
	{DW_OP_GNU_push_tls_address, "DW_OP_GNU_push_tls_address", "thread-local storage"},
};

std::string op_name(int op)
{
	for (const Refused &r : refused_ops)
		if (r.op == op)
			return r.name;
	char buf[32];
	snprintf(buf, sizeof buf, "DW_OP 0x%x", op);
	return buf;
}

Error optimized(const Context &c, const std::string &why)
{
	return fail(c.var + " is optimized out at " + c.where + " (" + why + ")");
}

// One value of the expression stack.
struct Val {
	enum Kind { Const, RegPlus, Addr, MemAt } kind = Const;
	int reg = -1;    // RegPlus, MemAt of a register: the register; MemAt of an Addr: -1
	int64_t off = 0; // the constant, the offset or the address
};

Result<Val> reg_val(const Context &c, int reg, int64_t off)
{
	if (reg_name(c.arch, reg).empty())
		return fail(c.var + " is in DWARF register " + std::to_string(reg) + " at " + c.where +
				    " (a vector or floating-point register)",
			    "only integer registers can be read");
	return Val{Val::RegPlus, reg, off};
}

// The frame base of c.function at c.pc, as an address (RegPlus).
Result<Val> frame_base(const Context &c)
{
	Dwarf_Attribute a;
	if (!c.function || !dwarf_attr_integrate(c.function, DW_AT_frame_base, &a))
		return optimized(c, "its location is relative to a frame base the function lacks");
	Dwarf_Op *ops = nullptr;
	size_t n = 0;
	if (dwarf_getlocation_addr(&a, c.pc, &ops, &n, 1) <= 0 || n == 0)
		return optimized(c, "the function's frame base is not known at this address");
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		auto cfa = cfa_at(c);
		if (!cfa)
			return cfa.error();
		return Val{Val::RegPlus, cfa->reg, cfa->off};
	}
	if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		return reg_val(c, ops[0].atom - DW_OP_reg0, 0);
	if (n == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
		return reg_val(c, ops[0].atom - DW_OP_breg0, static_cast<int64_t>(ops[0].number));
	return optimized(c, "the function's frame base is an expression stap-pmu cannot follow");
}

// Operations that push a constant: value in *v.
bool constant_op(const Dwarf_Op &o, int64_t &v)
{
	if (o.atom >= DW_OP_lit0 && o.atom <= DW_OP_lit31) {
		v = o.atom - DW_OP_lit0;
		return true;
	}
	switch (o.atom) {
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_constu:
		v = static_cast<int64_t>(o.number);
		return true;
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
	case DW_OP_consts:
		v = static_cast<int64_t>(o.number);
		return true;
	}
	return false;
}

// plus_uconst, plus, minus, deref, deref_size on the top of st.
Status arith(const Context &c, const Dwarf_Op &o, std::vector<Val> &st)
{
	Val &top = st.back();
	if (o.atom == DW_OP_deref || o.atom == DW_OP_deref_size) {
		if (top.kind != Val::RegPlus && top.kind != Val::Addr)
			return optimized(c, "its location needs more than one memory read");
		top.kind = Val::MemAt;
		return {};
	}
	if (o.atom == DW_OP_plus_uconst) {
		if (top.kind == Val::MemAt)
			return optimized(c, "its location adds to a value read from memory");
		top.off += static_cast<int64_t>(o.number);
		return {};
	}
	Val b = st.back();
	st.pop_back();
	Val &a = st.back();
	if (o.atom == DW_OP_plus && a.kind == Val::Const && b.kind != Val::MemAt) {
		b.off += a.off;
		a = b;
		return {};
	}
	if (b.kind != Val::Const || a.kind == Val::MemAt)
		return optimized(c, "its location computes with values stap-pmu cannot follow");
	a.off += o.atom == DW_OP_plus ? b.off : -b.off;
	return {};
}

// Applies one operation (not a register location, piece or stack_value) to st.
Status step(const Context &c, const Dwarf_Op &o, std::vector<Val> &st)
{
	int64_t k = 0;
	if (constant_op(o, k)) {
		st.push_back({Val::Const, -1, k});
		return {};
	}
	if (o.atom >= DW_OP_breg0 && o.atom <= DW_OP_breg31) {
		auto v = reg_val(c, o.atom - DW_OP_breg0, static_cast<int64_t>(o.number));
		if (!v)
			return v.error();
		st.push_back(*v);
		return {};
	}
	Result<Val> pushed = Val{};
	switch (o.atom) {
	case DW_OP_bregx:
		pushed = reg_val(c, static_cast<int>(o.number), static_cast<int64_t>(o.number2));
		break;
	case DW_OP_fbreg:
		pushed = frame_base(c);
		if (pushed)
			pushed->off += static_cast<int64_t>(o.number);
		break;
	case DW_OP_call_frame_cfa: {
		auto cfa = cfa_at(c);
		if (!cfa)
			return cfa.error();
		pushed = Val{Val::RegPlus, cfa->reg, cfa->off};
		break;
	}
	case DW_OP_addr:
		pushed = Val{Val::Addr, -1, static_cast<int64_t>(o.number)};
		break;
	case DW_OP_plus_uconst:
	case DW_OP_plus:
	case DW_OP_minus:
	case DW_OP_deref:
	case DW_OP_deref_size:
		if (st.empty() || (o.atom != DW_OP_plus_uconst && o.atom != DW_OP_deref &&
				   o.atom != DW_OP_deref_size && st.size() < 2))
			return optimized(c, "its location expression is malformed");
		return arith(c, o, st);
	default:
		return optimized(c, "its location is " + op_name(o.atom) + ": " +
					    [&] {
						    for (const Refused &r : refused_ops)
							    if (r.op == o.atom)
								    return std::string(r.why);
						    return std::string("not supported");
					    }());
	}
	if (!pushed)
		return pushed.error();
	st.push_back(*pushed);
	return {};
}

} // namespace

namespace {

// The value of the expression once its stack is st (value: DW_OP_stack_value).
Result<Location> result_of(const Context &c, const std::vector<Val> &st, bool value)
{
	if (st.empty())
		return optimized(c, "its location expression is empty");
	const Val &v = st.back();
	using L = Location;
	if (value && v.kind == Val::Const)
		return L{L::Const, 0, v.off};
	if (value && v.kind == Val::RegPlus)
		return L{L::RegOffset, v.reg, v.off};
	if ((value && v.kind == Val::MemAt && v.reg >= 0) || (!value && v.kind == Val::RegPlus))
		return L{L::Mem, v.reg, v.off};
	if ((value && v.kind == Val::MemAt) || (!value && v.kind == Val::Addr))
		return L{L::Static, 0, v.off};
	if (!value && v.kind == Val::MemAt)
		return optimized(c, "its location needs more than one memory read");
	if (value)
		return optimized(c, "its value is a link-time address");
	return optimized(c, "its location is a constant address");
}

bool is_reg_op(const Dwarf_Op &o, int &reg)
{
	if (o.atom >= DW_OP_reg0 && o.atom <= DW_OP_reg31)
		reg = o.atom - DW_OP_reg0;
	else if (o.atom == DW_OP_regx)
		reg = static_cast<int>(o.number);
	else
		return false;
	return true;
}

// A DW_OP_implicit_value of at most 8 bytes: the constant (little-endian).
Result<Location> implicit_value(const Context &c, const Dwarf_Op &o, Dwarf_Attribute *attr)
{
	Dwarf_Block b{};
	if (!attr || dwarf_getlocation_implicit_value(attr, &o, &b) != 0 || b.length > 8)
		return optimized(c, "its location is DW_OP_implicit_value: a constant of more than 8 bytes");
	uint64_t v = 0;
	for (size_t i = b.length; i > 0; i--)
		v = v << 8 | b.data[i - 1];
	return Location{Location::Const, 0, static_cast<int64_t>(v)};
}

} // namespace

Result<Location> compile(const Context &c, const Dwarf_Op *ops, size_t n, Dwarf_Attribute *attr)
{
	// one DW_OP_piece at the very end: the whole value in one piece
	if (n > 1 && ops[n - 1].atom == DW_OP_piece)
		n--;
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_piece)
			return optimized(c, "its location is DW_OP_piece: split into pieces");
	if (n == 0)
		return optimized(c, "it has no location here");
	int reg = 0;
	if (is_reg_op(ops[0], reg)) {
		if (n != 1)
			return optimized(c, "its location expression is malformed");
		auto v = reg_val(c, reg, 0);
		if (!v)
			return v.error();
		return Location{Location::Reg, reg, 0};
	}
	if (ops[0].atom == DW_OP_implicit_value)
		return implicit_value(c, ops[0], attr);
	std::vector<Val> st;
	bool value = false;
	for (size_t i = 0; i < n; i++) {
		if (ops[i].atom == DW_OP_stack_value) {
			if (i + 1 != n)
				return optimized(c, "its location expression is malformed");
			value = true;
			break;
		}
		if (Status s = step(c, ops[i], st); !s)
			return s.error();
	}
	return result_of(c, st, value);
}

Result<Location> location_at(const Context &c, Dwarf_Attribute *loc)
{
	Dwarf_Op *ops = nullptr;
	size_t n = 0;
	int got = dwarf_getlocation_addr(loc, c.pc, &ops, &n, 1);
	if (got < 0)
		return fail("cannot read the location of " + c.var + " at " + c.where + ": " +
			    dwarf_errmsg(-1));
	if (got == 0)
		return fail(c.var + " is not available at " + c.where +
			    " (its location list has no entry for this address)");
	return compile(c, ops, n, loc);
}

Result<Location> cfa_at(const Context &c)
{
	for (Dwarf_CFI *cfi : c.cfi) {
		Dwarf_Frame *frame = nullptr;
		if (!cfi || dwarf_cfi_addrframe(cfi, c.pc, &frame) != 0)
			continue;
		Dwarf_Op *ops = nullptr;
		size_t n = 0;
		int r = dwarf_frame_cfa(frame, &ops, &n);
		Location out;
		bool ok = r == 0 && n == 1 &&
			  (ops[0].atom == DW_OP_bregx ||
			   (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31));
		if (ok) {
			out.kind = Location::RegOffset;
			out.reg = ops[0].atom == DW_OP_bregx ? static_cast<int>(ops[0].number)
							     : ops[0].atom - DW_OP_breg0;
			out.off = static_cast<int64_t>(ops[0].atom == DW_OP_bregx ? ops[0].number2
										   : ops[0].number);
		}
		free(frame);
		if (ok)
			return out;
		return optimized(c, "its frame's address is an expression stap-pmu cannot follow");
	}
	return optimized(c, "no call frame information covers this address");
}

std::string reg_name(Arch a, int reg)
{
	if (a == Arch::X86_64)
		return reg >= 0 && reg <= 16 ? x86_regs[reg] : "";
	if (reg == 31)
		return "sp";
	return reg >= 0 && reg <= 30 ? "x" + std::to_string(reg) : "";
}

int reg_number(Arch a, const std::string &name)
{
	if (a == Arch::X86_64) {
		if (name == "rip")
			return -1;
		for (int r = 0; r < 16; r++)
			if (name == x86_regs[r] || name == x86_alias[r].e || name == x86_alias[r].w ||
			    name == x86_alias[r].b)
				return r;
		return -2;
	}
	if (name == "sp" || name == "wsp")
		return 31;
	if (name.size() >= 2 && (name[0] == 'x' || name[0] == 'w') &&
	    name.find_first_not_of("0123456789", 1) == std::string::npos && name.size() <= 3) {
		int r = std::stoi(name.substr(1));
		return r <= 30 ? r : -2;
	}
	return -2;
}

} // namespace stap_pmu::dwarfloc
