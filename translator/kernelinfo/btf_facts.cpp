// btf_facts.cpp - BtfKernelFacts: functions, target variables and @cast
// from the kernel's BTF (btf.h) and its modules' split BTF, with argument
// registers from the ABI rules (abi.h). Messages follow dwarf.cpp's where
// they mean the same thing.
#include "translator/kernelinfo/btf_facts.h"
#include "translator/kernelinfo/abi.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/support/suggest.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <map>

namespace stap_pmu {

namespace fs = std::filesystem;
using btf::Btf;
using btf::Kind;
using btf::Type;

struct BtfKernelFacts::State {
	bool kernel_tried = false;
	std::unique_ptr<Btf> kernel;
	Error kernel_error;
	std::map<std::string, std::unique_ptr<Btf>> modules; // by path
	// find_module's answers (every probe point and @cast of a module asks):
	// name -> (path or "", the directories searched)
	std::map<std::string, std::pair<std::string, std::string>> found;
	// functions defined more than once (static functions of several
	// files): (BTF path, name) -> their FUNC ids
	std::map<std::pair<std::string, std::string>, std::vector<uint32_t>> defs;
	// BTF path -> its functions by name (the ids of each definition),
	// listed once: pass 2 asks for hundreds of patterns (syscall.*.return)
	std::map<std::string, std::map<std::string, std::vector<uint32_t>>> funcs;
};

namespace {

using State = BtfKernelFacts::State;

// An error about the kernel's BTF, worded for @cast(..., "kernel").
Error cast_worded(Error e)
{
	const std::string kf = "kernel.function";
	if (e.what.rfind(kf, 0) == 0)
		e.what = "@cast(..., \"kernel\")" + e.what.substr(kf.size());
	return e;
}

Result<const Btf *> kernel_btf(State &st, const btf::Options &o)
{
	if (!st.kernel_tried) {
		st.kernel_tried = true;
		std::string path = o.btf_file;
		if (path.empty()) {
			Result<std::string> src = btf::kernel_btf_source(o.release, o.arch);
			if (src)
				path = *src;
			else
				st.kernel_error = src.error();
		}
		if (!path.empty()) {
			Result<std::unique_ptr<Btf>> b = Btf::open(path);
			if (b)
				st.kernel = std::move(*b);
			else
				st.kernel_error = fail("kernel.function needs the kernel's BTF: " + b.error().what,
						       "give a kernel built with CONFIG_DEBUG_INFO_BTF=y, or "
						       "its debug vmlinux with --vmlinux FILE");
		}
	}
	if (!st.kernel)
		return st.kernel_error;
	return st.kernel.get();
}

std::string norm_mod(std::string s)
{
	std::replace(s.begin(), s.end(), '-', '_');
	return s;
}

// The BTF of module `name` ('/' in it: the .ko at that path), split on the
// kernel's. for_cast: the errors are about @cast's module argument.
Result<const Btf *> module_btf(State &st, const btf::Options &o, const std::string &name,
			       bool for_cast)
{
	Result<const Btf *> k = kernel_btf(st, o);
	if (!k)
		return for_cast ? cast_worded(k.error()) : k.error();
	std::string what = for_cast ? "@cast(..., \"" + name + "\")" : "module(\"" + name + "\")";
	std::string path = name;
	if (name.find('/') == std::string::npos) {
		auto known = st.found.find(norm_mod(name));
		if (known == st.found.end()) {
			std::string in;
			std::string p = btf::find_module(o, name, &in);
			known = st.found.emplace(norm_mod(name), std::make_pair(p, in)).first;
		}
		path = known->second.first;
		const std::string &in = known->second.second;
		std::string sys = "/sys/kernel/btf/" + norm_mod(name);
		if (path.empty() && (*k)->path() == "/sys/kernel/btf/vmlinux" && fs::exists(sys))
			path = sys;
		if (path.empty())
			return fail(what + " needs " + name + ".ko for its BTF: not found in " + in,
				    for_cast ? "give its directory with --module-dir DIR, or the file with "
					       "--vm-module FILE.ko"
					     : "give its directory with --module-dir DIR, or probe by symbol with "
					       "kprobe.module(\"" + name + "\").function(\"name\")");
	}
	if (auto it = st.modules.find(path); it != st.modules.end())
		return it->second.get();
	Result<std::unique_ptr<Btf>> b = Btf::open_split(path, **k);
	if (!b)
		return fail(what + " needs the module's BTF: " + b.error().what,
			    "build the module with CONFIG_DEBUG_INFO_BTF_MODULES=y");
	return (st.modules[path] = std::move(*b)).get();
}

// The BTF a KernelFunction came from.
const Btf *btf_of(const State &st, const std::string &path)
{
	if (st.kernel && st.kernel->path() == path)
		return st.kernel.get();
	auto it = st.modules.find(path);
	return it == st.modules.end() ? nullptr : it->second.get();
}

bool is_qualifier(Kind k)
{
	return k == Kind::Typedef || k == Kind::Const || k == Kind::Volatile || k == Kind::Restrict ||
	       k == Kind::TypeTag;
}

// Skips typedefs and qualifiers; 0 for void.
uint32_t strip(const Btf &b, uint32_t id)
{
	for (int n = 0; id && n < 64; n++) {
		Type t = b.type(id);
		if (!is_qualifier(t.kind))
			return id;
		id = t.ref;
	}
	return id;
}

// C spelling of type id as dwarf.cpp spells it: "struct file*", "char*",
// "size_t", "long int", "char[]", "func*"
std::string type_name(const Btf &b, uint32_t id)
{
	std::string stars;
	Type t = b.type(id);
	for (int n = 0; n < 64; n++) {
		if (t.kind == Kind::Ptr)
			stars += "*";
		else if (t.kind != Kind::Const && t.kind != Kind::Volatile && t.kind != Kind::Restrict &&
			 t.kind != Kind::TypeTag)
			break;
		if (!t.ref)
			return "void" + stars;
		t = b.type(t.ref);
	}
	std::string nm = t.name.empty() ? "?" : std::string(t.name);
	switch (t.kind) {
	case Kind::Void: return "void" + stars;
	case Kind::Struct: return "struct " + nm + stars;
	case Kind::Union: return "union " + nm + stars;
	case Kind::Enum: case Kind::Enum64: return "enum " + nm + stars;
	case Kind::Fwd: return (t.fwd_union ? "union " : "struct ") + nm + stars;
	case Kind::Array: return type_name(b, t.ref) + "[]" + stars;
	case Kind::FuncProto: return "func" + stars;
	default: return nm + stars;
	}
}

// A scalar (integer, enum, pointer, bool) type: size and signedness.
bool scalar(const Btf &b, uint32_t id, unsigned &size, bool &is_signed)
{
	Type t = b.type(strip(b, id));
	if (t.kind == Kind::Ptr) {
		size = 8;
		is_signed = false;
		return true;
	}
	if (t.kind == Kind::Int && t.bits == t.size * 8)
		is_signed = t.is_signed;
	else if (t.kind == Kind::Enum || t.kind == Kind::Enum64)
		is_signed = true; // as dwarf.cpp reads enums
	else
		return false;
	if (t.size != 1 && t.size != 2 && t.size != 4 && t.size != 8)
		return false;
	size = static_cast<unsigned>(t.size);
	return true;
}

unsigned align_of(const Btf &b, uint32_t id, int depth = 0)
{
	Type t = b.type(strip(b, id));
	switch (t.kind) {
	case Kind::Int: case Kind::Enum: case Kind::Enum64: case Kind::Float:
		return static_cast<unsigned>(std::min<uint64_t>(std::max<uint64_t>(t.size, 1), 16));
	case Kind::Ptr:
		return 8;
	case Kind::Array:
		return depth < 16 ? align_of(b, t.ref, depth + 1) : 1;
	case Kind::Struct: case Kind::Union: {
		unsigned a = 1;
		for (const btf::Member &m : b.members(strip(b, id)))
			a = std::max(a, depth < 16 ? align_of(b, m.type, depth + 1) : 1u);
		return a;
	}
	default:
		return 1;
	}
}

// A struct or union whose members are integers or pointers, each at an
// offset its alignment allows (no packed members): abi::Class::Aggregate.
bool integer_members(const Btf &b, uint32_t id, int depth = 0)
{
	uint32_t s = strip(b, id);
	Type t = b.type(s);
	if (t.kind == Kind::Array)
		return depth < 16 && integer_members(b, t.ref, depth + 1);
	if (t.kind == Kind::Int || t.kind == Kind::Ptr || t.kind == Kind::Enum || t.kind == Kind::Enum64)
		return true;
	if ((t.kind != Kind::Struct && t.kind != Kind::Union) || depth >= 16)
		return false;
	for (const btf::Member &m : b.members(s)) {
		bool bitfield = m.bit_size != 0;
		if (!integer_members(b, m.type, depth + 1) ||
		    (!bitfield && m.bit_offset % (8 * align_of(b, m.type)) != 0))
			return false;
	}
	return true;
}

abi::ParamShape shape(const Btf &b, uint32_t id)
{
	uint32_t s = strip(b, id);
	Type t = b.type(s);
	switch (t.kind) {
	case Kind::Int: case Kind::Enum: case Kind::Enum64:
		return {t.size, abi::Class::Integer, 0};
	case Kind::Ptr:
		return {8, abi::Class::Integer, 0};
	case Kind::Float:
		return {t.size, abi::Class::Float, 0};
	case Kind::Struct: case Kind::Union:
		return {t.size, integer_members(b, s) ? abi::Class::Aggregate : abi::Class::Other,
			align_of(b, s)};
	default:
		return {0, abi::Class::Other, 0};
	}
}

// The parameters of a FUNC_PROTO without the "..." of a variadic one.
std::vector<btf::Param> params_of(const Btf &b, uint32_t proto)
{
	std::vector<btf::Param> ps = b.params(proto);
	if (!ps.empty() && ps.back().type == 0)
		ps.pop_back();
	return ps;
}

KernelFunction make_function(const Btf &b, uint32_t func, const std::string &module,
			     Arch arch)
{
	KernelFunction f;
	Type fn = b.type(func);
	f.name = fn.name;
	f.module = module;
	f.info_file = b.path();
	f.info_id = func;
	uint32_t ret = b.type(fn.ref).ref;
	unsigned sz;
	bool sg;
	f.ret_type = type_name(b, ret);
	f.ret_scalar = ret && scalar(b, ret, sz, sg);
	std::vector<btf::Param> ps = params_of(b, fn.ref);
	std::vector<abi::ParamShape> shapes;
	for (const btf::Param &p : ps)
		shapes.push_back(shape(b, p.type));
	abi::ParamShape rs = ret ? shape(b, ret) : abi::ParamShape{0, abi::Class::Integer, 0};
	std::vector<int> args = abi::arg_indexes(shapes, arch, rs);
	for (size_t i = 0; i < ps.size(); i++) {
		KernelParam pa;
		pa.name = ps[i].name;
		pa.type = type_name(b, ps[i].type);
		pa.arg = scalar(b, ps[i].type, sz, sg) ? args[i] : -1;
		f.params.push_back(pa);
	}
	return f;
}

// f with the parameters that another definition of the same name (FUNC
// other) passes differently (another type at that position, or another
// register) made unreadable: a probe on the name may hit either. Names
// may differ (a weak stub's "__unused"): f's are kept.
void merge_definition(const Btf &b, KernelFunction &f, uint32_t other, Arch arch)
{
	if (b.type(static_cast<uint32_t>(f.info_id)).ref == b.type(other).ref)
		return; // the same prototype
	std::vector<btf::Param> mine = params_of(b, b.type(static_cast<uint32_t>(f.info_id)).ref);
	std::vector<btf::Param> theirs = params_of(b, b.type(other).ref);
	KernelFunction g = make_function(b, other, f.module, arch);
	for (size_t i = 0; i < f.params.size(); i++)
		if (i >= theirs.size() || theirs[i].type != mine[i].type || g.params[i].arg != f.params[i].arg)
			f.params[i].arg = -1;
	if (g.ret_type != f.ret_type)
		f.ret_scalar = false;
}

bool has_glob(const std::string &s)
{
	return s.find_first_of("*?[") != std::string::npos;
}

// The error for a pattern no function of b matches.
Error no_match(const Btf &b, const std::string &pattern)
{
	std::string hint = "BTF has the functions that are not inlined everywhere";
	if (!has_glob(pattern)) {
		std::vector<std::string> names;
		for (uint32_t id = b.first_id(); id < b.end_id(); id++)
			if (Type t = b.type(id); t.kind == Kind::Func)
				names.emplace_back(t.name);
		std::string near = closest_name(pattern, names);
		if (!near.empty())
			hint = "did you mean '" + near + "'?";
	}
	return fail("no function matches '" + pattern + "' in " + b.path(), hint);
}

} // namespace

BtfKernelFacts::BtfKernelFacts(btf::Options opts)
	: opts_(std::move(opts)), state_(std::make_unique<State>())
{
}

BtfKernelFacts::~BtfKernelFacts() = default;

Result<std::vector<KernelFunction>> BtfKernelFacts::functions(const std::string &module,
							      const std::string &pattern) const
{
	Result<FunctionPattern> fp = parse_function_pattern(pattern);
	if (!fp)
		return fp.error();
	std::string form = module.empty() ? "kernel.function" : "module(\"" + module + "\").function";
	if (!fp->file_glob.empty() || fp->line > 0)
		return fail(form + "(\"" + pattern + "\") needs " +
				    (module.empty() ? "the kernel's" : "the module's") +
				    " DWARF: BTF has no source files or line numbers",
			    "install linux-image-" + opts_.release +
				    "-dbg or give a debug vmlinux with --vmlinux FILE, or name only the "
				    "function: \"" + fp->glob + "\"");
	Result<const Btf *> b = module.empty() ? kernel_btf(*state_, opts_)
					       : module_btf(*state_, opts_, module, false);
	if (!b)
		return b.error();
	const Btf &bt = **b;
	auto [fi, fresh] = state_->funcs.try_emplace(bt.path());
	std::map<std::string, std::vector<uint32_t>> &all = fi->second;
	if (fresh)
		for (uint32_t id = bt.first_id(); id < bt.end_id(); id++) {
			Type t = bt.type(id);
			if (t.kind == Kind::Func && t.linkage != 2 && !t.name.empty())
				all[std::string(t.name)].push_back(id);
		}
	std::map<std::string, std::vector<uint32_t>> found; // sorted by name
	// the literal start of the glob: the range of names to fnmatch
	std::string prefix = fp->glob.substr(0, fp->glob.find_first_of("*?[\\"));
	for (auto it = all.lower_bound(prefix);
	     it != all.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
		if (fnmatch(fp->glob.c_str(), it->first.c_str(), 0) == 0)
			found.insert(*it);
	if (found.empty())
		return no_match(bt, pattern);
	std::vector<KernelFunction> out;
	Arch arch = opts_.arch;
	for (const auto &[name, ids] : found) {
		KernelFunction f = make_function(bt, ids[0], module, arch);
		for (size_t i = 1; i < ids.size(); i++)
			merge_definition(bt, f, ids[i], arch);
		if (ids.size() > 1)
			state_->defs[{bt.path(), name}] = ids;
		out.push_back(std::move(f));
	}
	return out;
}

namespace {

// Finds member `name` in struct/union id (anonymous members searched too):
// its type and byte offset; false for a bit field (*bitfield set).
bool find_member(const Btf &b, uint32_t id, const std::string &name, uint32_t &type, int64_t &off,
		 bool &bitfield, int depth = 0)
{
	for (const btf::Member &m : b.members(id)) {
		if (m.name == name) {
			Type mt = b.type(strip(b, m.type));
			if (m.bit_size || m.bit_offset % 8 ||
			    (mt.kind == Kind::Int && mt.bits != mt.size * 8)) {
				bitfield = true;
				return false;
			}
			type = m.type;
			off = m.bit_offset / 8;
			return true;
		}
		uint32_t s = strip(b, m.type);
		Kind k = b.type(s).kind;
		if (m.name.empty() && (k == Kind::Struct || k == Kind::Union) && depth < 16 &&
		    find_member(b, s, name, type, off, bitfield, depth + 1)) {
			off += m.bit_offset / 8;
			return true;
		}
	}
	return false;
}

// The member names of struct/union id, anonymous members' members inline.
void member_names(const Btf &b, uint32_t id, std::vector<std::string> &out, int depth = 0)
{
	for (const btf::Member &m : b.members(id)) {
		if (!m.name.empty())
			out.emplace_back(m.name);
		else if (depth < 16)
			member_names(b, strip(b, m.type), out, depth + 1);
	}
}

// The struct or union that a "->" after a value of type t reaches (0:
// none): the pointee of a pointer (a new step); t itself when it is a
// struct or union the walk is at (first_of_cast: @cast's type, at its
// address) or a member that is one (`embedded`: its offset is added to the
// last step's). A declaration (Fwd) is replaced by its definition when the
// BTF has one.
uint32_t arrow_target(const Btf &b, uint32_t t, bool first_of_cast, bool after_member,
		      bool &embedded)
{
	uint32_t s = strip(b, t);
	Kind k = b.type(s).kind;
	embedded = false;
	if (first_of_cast)
		;
	else if (k == Kind::Ptr)
		s = strip(b, b.type(s).ref);
	else if (after_member && (k == Kind::Struct || k == Kind::Union))
		embedded = true;
	else
		return 0;
	Type ty = b.type(s);
	if (ty.kind == Kind::Fwd) {
		uint32_t def = b.find(std::string(ty.name), ty.fwd_union ? Kind::Union : Kind::Struct);
		return def ? def : s;
	}
	return ty.kind == Kind::Struct || ty.kind == Kind::Union ? s : 0;
}

// The end of a walk at a value of type t: a scalar is read (its size and
// signedness); an array, struct or union member gives its address.
bool walk_end(const Btf &b, uint32_t t, const std::vector<std::string> &members,
	      TargetAccess &acc, WalkFail &fail)
{
	unsigned sz = 8;
	bool sg = false;
	if (scalar(b, t, sz, sg)) {
		acc.size = sz;
		acc.is_signed = sg;
		acc.deref_last = !acc.offsets.empty();
		return true;
	}
	fail.type = type_name(b, t);
	fail.step = members.empty() ? 0 : members.size() - 1;
	if (acc.offsets.empty()) {
		fail.what = WalkFail::NotScalar;
		return false;
	}
	Kind k = b.type(strip(b, t)).kind;
	if (k != Kind::Array && k != Kind::Struct && k != Kind::Union) {
		fail.what = WalkFail::Unreadable;
		return false;
	}
	acc.deref_last = false; // arrays and structs: their address
	return true;
}

// A struct or union declared only (Fwd): its definition when the BTF has one.
uint32_t complete(const Btf &b, uint32_t s)
{
	Type ty = b.type(s);
	if (ty.kind != Kind::Fwd)
		return s;
	uint32_t def = b.find(std::string(ty.name), ty.fwd_union ? Kind::Union : Kind::Struct);
	return def ? def : s;
}

// Applies an index step "[]" or "[N]" (step i) to a value of type t, as
// dwarf.cpp does: an array held in memory (a member) adds index times the
// element size to the last step's offset; a pointer (or @cast's type at its
// address, first_of_cast) starts a new step at the element. t becomes the
// element's type.
bool index_step(const Btf &b, uint32_t &t, bool first_of_cast, size_t i,
		const std::string &step, TargetAccess &acc, WalkFail &fail)
{
	uint32_t s = strip(b, t);
	Type ty = b.type(s);
	uint32_t elem = 0;
	bool embedded = false;
	fail.step = i;
	fail.type = type_name(b, t);
	if (first_of_cast) {
		elem = t;
	} else if (ty.kind == Kind::Array && i > 0) {
		elem = ty.ref;
		embedded = true;
	} else if (ty.kind == Kind::Ptr) {
		elem = ty.ref;
	} else {
		fail.what = WalkFail::NotIndexable;
		return false;
	}
	uint32_t es = complete(b, strip(b, elem));
	std::optional<uint64_t> stride = es ? b.size_of(es) : std::nullopt;
	if (!stride || !*stride || b.type(es).kind == Kind::Fwd) {
		fail.what = WalkFail::NoElementSize;
		return false;
	}
	int64_t n = 0;
	if (step != "[]") {
		n = std::stoll(step.substr(1));
		if (embedded && ty.size && static_cast<uint64_t>(n) >= ty.size) {
			fail.what = WalkFail::OutOfBounds;
			fail.bound = ty.size;
			return false;
		}
	}
	if (!embedded)
		acc.offsets.push_back(0);
	acc.offsets.back() += static_cast<int32_t>(n * static_cast<int64_t>(*stride));
	if (step == "[]")
		acc.indices.push_back({acc.offsets.size() - 1, static_cast<int64_t>(*stride)});
	t = elem;
	return true;
}

// Applies "->m" steps to a value of type t into acc, as dwarf.cpp does:
// each step needs a pointer to a struct or union (pointee: t is the struct
// itself, the value its address) and appends the member's offset. A "->"
// after a member that is a struct or union itself (not a pointer: "f_path"
// of struct file) adds to the offset of that member instead, as SystemTap
// allows. "[i]" steps index arrays and pointers (index_step). The last type
// gives the size and signedness of a scalar, which is read; an array,
// struct or union gives its address.
bool walk_members(const Btf &b, uint32_t t, bool pointee, const std::vector<std::string> &members,
		  TargetAccess &acc, WalkFail &fail, uint32_t *end = nullptr)
{
	for (size_t i = 0; i < members.size(); i++) {
		if (is_index_step(members[i])) {
			if (!index_step(b, t, pointee && i == 0, i, members[i], acc, fail))
				return false;
			continue;
		}
		bool embedded = false;
		uint32_t s = arrow_target(b, t, pointee && i == 0, i > 0, embedded);
		if (!s) {
			fail.what = WalkFail::NotPointer;
			fail.step = i;
			fail.type = type_name(b, t);
			return false;
		}
		if (b.type(s).kind == Kind::Fwd) {
			fail.what = WalkFail::Incomplete;
			fail.step = i;
			fail.type = type_name(b, s);
			return false;
		}
		uint32_t mt = 0;
		int64_t off = 0;
		bool bitfield = false;
		if (!find_member(b, s, members[i], mt, off, bitfield)) {
			fail.what = bitfield ? WalkFail::BitField : WalkFail::NoMember;
			fail.step = i;
			fail.type = type_name(b, s);
			if (!bitfield)
				member_names(b, s, fail.names);
			return false;
		}
		if (embedded)
			acc.offsets.back() += static_cast<int32_t>(off);
		else
			acc.offsets.push_back(static_cast<int32_t>(off));
		t = mt;
	}
	if (end)
		*end = t;
	return walk_end(b, t, members, acc, fail);
}

// The FUNC ids of every definition of f's name in b (one unless static
// functions of several files share it).
std::vector<uint32_t> definitions(const State &st, const KernelFunction &f)
{
	auto it = st.defs.find({f.info_file, f.name});
	if (it != st.defs.end())
		return it->second;
	return {static_cast<uint32_t>(f.info_id)};
}

// The BTF type of $name (a parameter of f, by its position) or of
// $return; an error when the definitions of f's name disagree about it.
Result<uint32_t> var_type(const Btf &b, const State &st, const KernelFunction &f,
			  const std::string &name)
{
	size_t pos = 0;
	while (pos < f.params.size() && f.params[pos].name != name)
		pos++;
	std::vector<uint32_t> types;
	for (uint32_t def : definitions(st, f)) {
		uint32_t proto = b.type(def).ref;
		std::vector<btf::Param> ps = params_of(b, proto);
		types.push_back(name == "return" ? b.type(proto).ref : pos < ps.size() ? ps[pos].type : 0);
	}
	for (uint32_t t : types)
		if (t != types[0])
			return fail(std::to_string(types.size()) + " functions are named " + f.name +
					    " (static functions of different files) and their " +
					    (name == "return" ? "return types" : "parameters '$" + name + "'") +
					    " differ: stap-pmu cannot tell which one a probe hits",
				    "give a debug vmlinux with --vmlinux FILE, or read the registers with "
				    "register()");
	return types[0];
}

} // namespace

// target_access, with the type the walk ends at (end).
Result<TargetAccess> BtfKernelFacts::access_of(const KernelFunction &f, const std::string &spelling,
					       bool in_return, uint32_t *end) const
{
	std::vector<std::string> parts = split_target_spelling(spelling);
	const Btf *b = btf_of(*state_, f.info_file);
	if (!b || b->type(static_cast<uint32_t>(f.info_id)).kind != Kind::Func)
		return fail("lost the BTF of " + f.name);
	TargetAccess acc;
	std::string where = " in " + f.name + "()";
	if (parts[0] == "return") {
		if (!in_return)
			return fail("$return is only available in .return probes");
		if (!b->type(b->type(static_cast<uint32_t>(f.info_id)).ref).ref)
			return fail(f.name + "() returns void: no $return");
		acc.base = TargetAccess::Return;
	} else {
		Result<TargetAccess> pa = parameter_access(f, parts[0]);
		if (!pa) {
			bool known = std::any_of(f.params.begin(), f.params.end(),
						 [&](const KernelParam &p) { return p.name == parts[0]; });
			if (Result<uint32_t> t = var_type(*b, *state_, f, parts[0]); known && !t)
				return t.error();
			return pa.error();
		}
		acc = *pa;
	}
	Result<uint32_t> t = var_type(*b, *state_, f, parts[0]);
	if (!t)
		return t.error();
	std::vector<std::string> members(parts.begin() + 1, parts.end());
	WalkFail wf;
	if (walk_members(*b, *t, false, members, acc, wf, end))
		return acc;
	return tvar_walk_error(wf, parts[0], members, where);
}
Result<TargetAccess> BtfKernelFacts::target_access(const KernelFunction &f,
						   const std::string &spelling, bool in_return) const
{
	return access_of(f, spelling, in_return, nullptr);
}

namespace {

void pretty_members(const Btf &b, uint32_t s, int depth, int64_t base,
		    std::vector<TypeMember> &out, int guard);

// The pretty-printing shape of a value of type t into m (name and offset
// are the caller's); depth: levels of nested structs still expanded.
void pretty_type(const Btf &b, uint32_t t, int depth, TypeMember &m, int guard = 0)
{
	uint32_t s = complete(b, strip(b, t));
	Type ty = b.type(s);
	m.type = type_name(b, t);
	std::optional<uint64_t> sz = s ? b.size_of(s) : std::nullopt;
	m.size = sz ? *sz : 0;
	switch (ty.kind) {
	case Kind::Int:
		m.kind = ty.bits != ty.size * 8 ? TypeMember::Other
			 : ty.is_signed      ? TypeMember::Signed
					     : TypeMember::Unsigned;
		break;
	case Kind::Ptr: m.kind = TypeMember::Pointer; break;
	case Kind::Enum: case Kind::Enum64: m.kind = TypeMember::Enum; break;
	case Kind::Array: {
		Type et = b.type(strip(b, ty.ref));
		m.kind = et.kind == Kind::Int && et.name == "char" ? TypeMember::CharArray
									      : TypeMember::Array;
		m.count = ty.size;
		if (guard < 16)
			pretty_type(b, ty.ref, depth, m.members.emplace_back(), guard + 1);
		break;
	}
	case Kind::Struct: case Kind::Union:
		m.kind = ty.kind == Kind::Struct ? TypeMember::Struct : TypeMember::Union;
		if (depth > 0 && guard < 16) {
			m.expanded = true;
			pretty_members(b, s, depth - 1, 0, m.members, guard + 1);
		}
		break;
	default: m.kind = TypeMember::Other; break;
	}
}

// The members of struct/union s at offset base into out, anonymous
// members' members inline; a bit field is Other.
void pretty_members(const Btf &b, uint32_t s, int depth, int64_t base,
		    std::vector<TypeMember> &out, int guard)
{
	for (const btf::Member &bm : b.members(s)) {
		int64_t off = base + bm.bit_offset / 8;
		uint32_t ms = strip(b, bm.type);
		Kind k = b.type(ms).kind;
		if (bm.name.empty() && (k == Kind::Struct || k == Kind::Union)) {
			if (guard < 16)
				pretty_members(b, ms, depth, off, out, guard + 1);
			continue;
		}
		TypeMember &m = out.emplace_back();
		m.name = std::string(bm.name);
		m.offset = off;
		pretty_type(b, bm.type, depth, m, guard);
		if (bm.bit_size || bm.bit_offset % 8)
			m.kind = TypeMember::Other;
	}
}

} // namespace

Result<KernelFacts::Pretty> BtfKernelFacts::type_members(const KernelFunction &f,
							  const std::string &spelling,
							  bool in_return, int depth) const
{
	uint32_t end = 0;
	Result<TargetAccess> acc = access_of(f, spelling, in_return, &end);
	if (!acc)
		return acc.error();
	const Btf *b = btf_of(*state_, f.info_file);
	Pretty p;
	uint32_t s = strip(*b, end);
	if (b->type(s).kind == Kind::Ptr) {
		uint32_t to = complete(*b, strip(*b, b->type(s).ref));
		Kind k = b->type(to).kind;
		if (k == Kind::Struct || k == Kind::Union) {
			p.pointee = true;
			end = to;
		}
	}
	pretty_type(*b, end, depth, p.root);
	return p;
}

namespace {

// The kinds and names a @cast type may be defined under, in the order tried.
std::vector<std::pair<Kind, std::string>> cast_keys(const CastType &t)
{
	if (t.keyword == "struct")
		return {{Kind::Struct, t.name}};
	if (t.keyword == "union")
		return {{Kind::Union, t.name}};
	return {{Kind::Typedef, t.name}, {Kind::Struct, t.name}, {Kind::Union, t.name}};
}

// The message for a @cast type that none of the `searched` BTFs defines.
CastError cast_type_missing(const CastType &t, const std::vector<const Btf *> &searched)
{
	CastError e;
	e.part = CastError::Type;
	bool declared = false;
	std::map<std::string, std::string> near_names; // name -> its spelling
	std::string in;
	for (const Btf *b : searched) {
		in += (in.empty() ? "" : ", ") + b->path();
		declared = declared || b->find(t.name, Kind::Fwd);
		for (uint32_t id = 1; id < b->end_id(); id++) {
			Type ty = b->type(id);
			const char *kw = ty.kind == Kind::Struct ? "struct" : ty.kind == Kind::Union ? "union"
					 : ty.kind == Kind::Typedef ? "" : nullptr;
			if (!kw || ty.name.empty())
				continue;
			std::string bare(ty.name);
			bool same = t.keyword.empty() || t.keyword == kw;
			if (!near_names.count(bare) || same)
				near_names[bare] = t.keyword.empty() || !*kw ? bare : kw + (" " + bare);
		}
	}
	return cast_type_missing_error(e, t, declared, in, near_names);
}

// The BTF @cast's module entry m names, or the error about it.
std::variant<const Btf *, CastError> cast_btf(State &st, const btf::Options &o,
					      const std::string &m)
{
	CastError me;
	me.part = CastError::Module;
	if (m.find('/') != std::string::npos && !fs::is_regular_file(m)) {
		me.msg = "@cast's module file " + m + " does not exist";
		return me;
	}
	Result<const Btf *> b = m == "kernel" ? kernel_btf(st, o) : module_btf(st, o, m, true);
	if (b)
		return *b;
	Error e = m == "kernel" ? cast_worded(b.error()) : b.error();
	me.msg = e.what;
	me.hint = e.hint;
	return me;
}

} // namespace

CastAccess BtfKernelFacts::cast_access(const std::string &module, const std::string &type,
				       const std::vector<std::string> &members) const
{
	auto parsed = parse_cast_type(type);
	if (auto *e = std::get_if<CastError>(&parsed))
		return *e;
	const CastType &ct = std::get<CastType>(parsed);
	std::vector<const Btf *> searched;
	std::optional<CastError> missing; // the first module without BTF
	for (const std::string &m : cast_modules(module)) {
		if (auto bad = bad_cast_module(m, module))
			return *bad;
		auto got = cast_btf(*state_, opts_, m);
		if (auto *me = std::get_if<CastError>(&got)) {
			if (!missing)
				missing = *me;
			continue;
		}
		const Btf *b = std::get<const Btf *>(got);
		searched.push_back(b);
		for (const auto &[kind, name] : cast_keys(ct)) {
			uint32_t id = b->find(name, kind);
			if (!id)
				continue;
			TargetAccess acc;
			WalkFail wf;
			if (walk_members(*b, id, true, members, acc, wf))
				return acc;
			return cast_walk_error(wf, members, ct.shown(), b->path());
		}
	}
	if (searched.empty())
		return *missing;
	return cast_type_missing(ct, searched);
}

TracepointLookup BtfKernelFacts::tracepoints(const std::string &) const
{
	return TracepointError{fail("kernel.trace needs the target kernel's build tree: BTF has no "
				    "tracepoint prototypes",
				    "install linux-headers-" + opts_.release),
			       false};
}

} // namespace stap_pmu
