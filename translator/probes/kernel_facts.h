// kernel_facts.h - what pass 2 knows about the target kernel: its functions
// and their prototypes, how a probe reads a target variable or a @cast
// member, and its tracepoints. Plain data and the KernelFacts interface that
// the probe providers and sema ask; the driver passes an implementation in
// (DwarfKernelFacts reads DWARF; tests pass a fake). Depends on the
// standard library and support/ only, so that both sides of the interface
// can see it: probes and sema, which ask, and the implementations, which
// answer.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "translator/support/result.h"

namespace stap_pmu {

// One parameter of a kernel function or one argument of a tracepoint.
struct KernelParam {
	std::string name;
	std::string type; // C spelling, for -L
	int arg = -1;     // ABI argument register index; -1: not in a register at entry
			  // (tracepoints: the argument's position; -1: not a scalar)
	std::string abi;  // tracepoints: "void *", "bool", "u8".."s64"; "" : not passable
};

// A kernel or module function (or a tracepoint's prototype) a probe point
// names.
struct KernelFunction {
	std::string name;
	std::string module; // "" : the kernel
	std::string file;   // declaration file
	int line = 0;
	uint32_t offset = 0; // bytes into the function (func@file:line), 0 at entry
	std::string ret_type; // "void" when none
	bool ret_scalar = false;
	std::vector<KernelParam> params;
	// Where the facts found it, for their own later questions about it
	// (target_access): the file read (a .ko or vmlinux) and the function's
	// place in it (for DWARF, its DIE offset). Opaque to everyone else.
	std::string info_file;
	uint64_t info_id = 0;
	bool tracepoint = false; // a tracepoint's prototype: name is the event
};

// How a probe body reads a target variable or a @cast member
// (runtime/stp_tvar.h).
// A DWARF location evaluated at one probe address (translator/dwarfloc/):
// where the value starts. reg: a DWARF register number of the target
// architecture (runtime stp_dwarf_reg() maps it to pt_regs).
struct Location {
	enum Kind {
		Reg,       // the value is register reg
		RegOffset, // the value is reg + off (DW_OP_bregN off; DW_OP_stack_value)
		Mem,       // the value is in memory at reg + off (a stack slot)
		Static,    // the value is in memory at link-time address off plus the
			   // run-time load bias (ip - probe's vaddr) of the binary
		Const,     // the value is off
	} kind = Reg;
	int reg = 0;
	int64_t off = 0;
};

struct TargetAccess {
	enum Base { Arg, Return, TpArg, Loc } base = Arg;
	int arg = 0;                  // Base Arg: argument register index; TpArg: position
	Location loc;                 // Base Loc: where the value starts
	bool user = false;            // memory is user space (process probes): read
				      // with copy_from_user_nofault
	std::vector<int32_t> offsets; // member offsets: each step reads a pointer and adds
	unsigned size = 8;            // bytes of the final value
	bool is_signed = false;
	bool deref_last = false;      // the final value is read from memory
	bool at_entry = false;        // .return: @entry(), the whole value read at entry
	// run-time "[i]" steps, in the order of the spelling's "[]": index k
	// adds its value times stride to the address of step `step`
	struct Index {
		size_t step = 0;
		int64_t stride = 0;
	};
	std::vector<Index> indices;
};

// Steps of a target variable or @cast chain: "name" (->name), "[]" (a
// run-time index) or "[N]" (a constant index, folded into the offsets and
// checked against a fixed array's bound).
inline bool is_index_step(const std::string &step) { return !step.empty() && step[0] == '['; }

// "$p->a[2]->b[]" split into the variable ("p") and its steps ("a", "[2]",
// "b", "[]"); the spelling without the '$'.
std::vector<std::string> split_target_spelling(const std::string &spelling);

// The steps written back as the script has them: "->a[2]->b[...]".
std::string steps_text(const std::vector<std::string> &steps, size_t upto);

// Why @cast could not be resolved, and which part of it the message is about.
struct CastError {
	enum Part { Module, Type, Member } part = Type;
	size_t member = 0; // Member: index into members
	std::string msg, hint;
};

// The member steps of a @cast, or why not.
using CastAccess = std::variant<TargetAccess, CastError>;

// One tracepoint of a subsystem.
struct TracepointEvent {
	std::string name; // "sched_switch"
	std::shared_ptr<const KernelFunction> func; // arguments as parameters
	std::string unsupported; // why it cannot be probed ("" : it can)
};

// The tracepoints a kernel declares in include/trace/events/<name>.h.
struct TracepointSubsystem {
	std::string name;   // "sched"
	std::string header; // "trace/events/sched.h"
	std::vector<TracepointEvent> events; // sorted by name
};

// Why a subsystem's tracepoints are not known. unknown_subsystem: the kernel
// has no such subsystem (the message is about the name); else they could
// not be read.
struct TracepointError {
	Error error;
	bool unknown_subsystem = false;
};

using TracepointLookup = std::variant<const TracepointSubsystem *, TracepointError>;

// What the target's symbol table says about a name kprobe.function (or
// kprobe.module(m).function) asks for.
struct SymbolCheck {
	bool known = false; // the facts have the symbol table; false: nothing is
			    // known and the name is left for the kernel to check at load
	bool found = false; // a text symbol of that name that kprobes may probe
	std::string why_not; // found false but the symbol exists: why it cannot be
			     // probed ("it is __init code", "the kernel's kprobe blacklist")
	std::vector<std::string> nearest; // not found: the closest probeable names
};

// Where a kernel text symbol is, relative to register_kprobe
// (KernelFacts::symbol_delta), and the name kallsyms gives that address:
// the first of the aliases there (__x64_sys_getpid is an alias of
// __do_sys_getpid), which the runtime's check expects.
struct SymbolDelta {
	int64_t delta = 0;
	std::string shown_as;
	bool operator==(const SymbolDelta &o) const
	{
		return delta == o.delta && shown_as == o.shown_as;
	}
};

// A value as $var$ pretty-prints it: a struct or union with its members, an
// array with its element, or a scalar (KernelFacts::type_members).
struct TypeMember {
	enum Kind {
		Signed, Unsigned, Pointer, CharArray, Array, Struct, Union, Enum, Other,
	} kind = Other;
	std::string name;   // "" : the value itself, or an array's element
	int64_t offset = 0; // bytes from the start of the enclosing struct
	uint64_t size = 0;  // bytes (Array, CharArray: the whole array)
	uint64_t count = 0; // Array, CharArray: elements
	std::string type;   // C spelling
	// Struct, Union: the members (anonymous ones' members inline), filled
	// while the depth asked for allows (expanded); Array: its one element
	bool expanded = false;
	std::vector<TypeMember> members;
};

// The target kernel, as pass 2 asks about it. The contract every
// implementation keeps (DWARF today, BTF later, fakes in tests):
// - answers are stable for the life of the object (implementations may
//   remember them; the const methods may fill caches);
// - failures are values, worded for the user: Error{what, hint} with the
//   what naming the probe point form asked about ("kernel.function needs
//   ...", "module(\"m\") needs ..."), which the caller reports at the
//   script location it chooses; nothing is printed;
// - a KernelFunction returned by functions() or in a TracepointEvent may be
//   passed back to target_access() of the same object.
class KernelFacts {
public:
	virtual ~KernelFacts() = default;

	// The functions of `module` ("" : the kernel) matching `pattern`
	// ("glob", "glob@fileglob" or "glob@fileglob:line"), sorted by name,
	// each name once. Error when there is no information about the module,
	// nothing matches or the line number is malformed.
	virtual Result<std::vector<KernelFunction>> functions(const std::string &module,
							      const std::string &pattern) const = 0;

	// How a probe on f reads "$name", "$name->field->field" or "$return"
	// (in_return: a .return probe).
	virtual Result<TargetAccess> target_access(const KernelFunction &f,
						   const std::string &spelling,
						   bool in_return) const = 0;

	// @cast(p, type, module)->members...: the offsets read from the
	// address p (each step reads a pointer, the last one the value or, for
	// an array or struct, gives its address; base and arg are unused).
	// type: "struct NAME", "union NAME", or NAME (a typedef, else a struct,
	// else a union); module: "kernel", a module name (looked up as
	// module("m") probe points do), a path to a .ko, or several separated
	// by ':' (the first that defines the type). parse_cast_type and
	// cast_modules below give the syntax's errors.
	virtual CastAccess cast_access(const std::string &module, const std::string &type,
				       const std::vector<std::string> &members) const = 0;

	// The tracepoints of subsystem `sys` ("sched").
	virtual TracepointLookup tracepoints(const std::string &sys) const = 0;

	// The subsystems that may have an event matching event_glob, for
	// kernel.trace("event") without its subsystem: a scan of the headers'
	// text, so tracepoints() stays the authority. Empty when unknown.
	virtual std::vector<std::string> tracepoint_subsystems(const std::string &event_glob) const
	{
		(void)event_glob;
		return {};
	}

	// What $spelling (as target_access takes it) pretty-prints as: its
	// type, a pointer to a struct or union followed to it (the root's
	// `pointee` set), with nested structs and unions expanded to `depth`
	// levels (1: the root's members only). The default knows no types.
	struct Pretty {
		bool pointee = false; // the value is the struct's address
		TypeMember root;
	};
	virtual Result<Pretty> type_members(const KernelFunction &f, const std::string &spelling,
					    bool in_return, int depth) const
	{
		(void)f;
		(void)spelling;
		(void)in_return;
		(void)depth;
		return fail("pretty-printing needs the types of the kernel's debugging information");
	}

	// $$locals: the local variables (not parameters, not globals) visible
	// where a probe on f fires, innermost scope first, each name once, with
	// their C types. The default (no DWARF: BTF has no locals) fails.
	virtual Result<std::vector<KernelParam>> locals(const KernelFunction &f) const
	{
		(void)f;
		return fail("locals need the debugging information (DWARF) of the function, "
			    "which BTF does not carry");
	}

	// The distance from the kernel's register_kprobe to its text symbol
	// `name` in the target's symbol table, when exactly one symbol has
	// that name: the runtime adds it to register_kprobe's address at load
	// (KASLR moves both alike) and checks the result with kallsyms, which
	// places an entry probe in the module's one ftrace_ops without a name
	// lookup (runtime/stp_ftrace.h). The default knows none.
	virtual std::optional<SymbolDelta> symbol_delta(const std::string &name) const
	{
		(void)name;
		return std::nullopt;
	}

	// Whether `name` is a probeable text symbol of `module` ("" : the
	// kernel). The default knows nothing (known = false).
	virtual SymbolCheck check_symbol(const std::string &module, const std::string &name) const
	{
		(void)module;
		(void)name;
		return {};
	}
};

// A kernel nothing is known about: every question fails as it does for a
// kernel of `release` whose debugging information and build tree are not
// found (no --vmlinux, no --module-dir). Elaboration given no facts
// (nullptr) asks this.
class NoKernelFacts : public KernelFacts {
public:
	explicit NoKernelFacts(std::string release = "") : release_(std::move(release)) {}

	Result<std::vector<KernelFunction>> functions(const std::string &module,
						      const std::string &pattern) const override;
	Result<TargetAccess> target_access(const KernelFunction &f, const std::string &spelling,
					   bool in_return) const override;
	CastAccess cast_access(const std::string &module, const std::string &type,
			       const std::vector<std::string> &members) const override;
	TracepointLookup tracepoints(const std::string &sys) const override;

private:
	std::string release_;
};

// The facts to ask: f, or NoKernelFacts when there are none.
const KernelFacts &facts_or_none(const KernelFacts *f);

// The messages of a kernel whose debugging information is not found, for
// kernel.function/module().function (for_cast: @cast's module argument).
// looked_at: the file reported missing (the kernel) or the directories
// searched (a module, "a, b, c").
Error kernel_info_missing(const std::string &release, const std::string &looked_at,
			  bool for_cast);
Error module_info_missing(const std::string &module, const std::string &looked_in,
			  bool for_cast);

// @cast's type argument: "struct NAME" / "union NAME" (keyword set) or NAME.
struct CastType {
	std::string keyword; // "struct", "union" or ""
	std::string name;
	// as written for messages: "struct NAME" or NAME
	std::string shown() const { return keyword.empty() ? name : keyword + " " + name; }
};
std::variant<CastType, CastError> parse_cast_type(const std::string &type);

// @cast's module argument split at ':' (entries trimmed), in order.
std::vector<std::string> cast_modules(const std::string &module);

// The error for an entry m of @cast's module argument `all` that names no
// module (empty, or a header); nothing when m is a module name or path.
std::optional<CastError> bad_cast_module(const std::string &m, const std::string &all);

// A function pattern "glob", "glob@fileglob" or "glob@fileglob:line";
// SystemTap's line forms ":*" (every line) and ":N-M" parse too.
struct FunctionPattern {
	std::string glob;
	std::string file_glob; // "" : any file
	int line = 0;          // 0 : the function's entry
	bool any_line = false; // ":*"
	int line_end = 0;      // ":N-M": M (line is N)
	// ":*" and ":N-M" probe several lines: not supported yet
	bool many_lines() const { return any_line || line_end > 0; }
};
// The error for a pattern whose many_lines().
Error many_lines_unsupported(const std::string &pattern);
Result<FunctionPattern> parse_function_pattern(const std::string &pattern);

// How a target variable $name of a probe on f starts: the argument that
// holds parameter `name`, or why it cannot be read (f has no such
// parameter, or it is not in an argument register). Implementations of
// target_access build on it, so that these messages are the same for all.
Result<TargetAccess> parameter_access(const KernelFunction &f, const std::string &name);

// Where a member walk ($p->a->b, @cast(...)->a->b) stopped, as every
// implementation reports it; the functions below word the messages, so
// that they are the same whatever the facts were read from.
struct WalkFail {
	enum What {
		NotPointer, Incomplete, NoMember, BitField, Unreadable, NotScalar,
		NotIndexable, // "[i]" after a value that is no array or pointer
		OutOfBounds,  // a constant index not below the array's bound
		NoElementSize, // "[i]" through a pointer to void or to an incomplete type
	} what = NotPointer;
	size_t step = 0;                // index of the member (NotPointer, NoMember, BitField)
	std::string type;               // NotPointer, Unreadable: the value's type;
					// others: the struct or union searched
	std::vector<std::string> names; // NoMember: the members it has
	uint64_t bound = 0;             // OutOfBounds: the array's element count
};

// The most run-time indices one target variable or @cast chain may have
// (runtime/stp_tvar.h STP_TVAR_MAXIDX).
constexpr size_t max_target_indices = 4;

// A target variable $var->members... whose walk failed; where: " in f()".
// NoMember: the hint has "did you mean" and the struct's members.
Error tvar_walk_error(const WalkFail &fail, const std::string &var,
		      const std::vector<std::string> &members, const std::string &where);

// A @cast to `shown` whose walk failed; path: the file that defines it.
CastError cast_walk_error(const WalkFail &fail, const std::vector<std::string> &members,
			  const std::string &shown, const std::string &path);

// A @cast type found in none of the files `in` ("a, b"): e with its
// message and hint (did you mean among near_names: name -> spelling as
// @cast takes it; declared: only declarations were found).
CastError cast_type_missing_error(CastError e, const CastType &t, bool declared,
				  const std::string &in,
				  const std::map<std::string, std::string> &near_names);

// "$a:int $b:struct stp_tm_rec*" for -L (in_return: with $return).
std::string describe_vars(const KernelFunction &f, bool in_return);

// The C prototype parameters of the generated probe function for ev
// ("void *__data, bool a0, void *a1"); "" when ev.unsupported is set.
std::string probe_params(const TracepointEvent &ev);

} // namespace stap_pmu
