// dwarf.h - functions, parameters and types from DWARF (libdw), for
// kernel.function / module("m").function probe points, target variables
// and @cast.
// dwarf.cpp is the only code that includes libdw.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stap_pmu::dwarf {

// Where DWARF is looked up; set by main before pass 2.
struct Config {
	std::string release;                  // target kernel release (/lib/modules/<release>)
	std::vector<std::string> module_dirs; // searched first (recursively) for <name>.ko
	std::vector<std::string> module_files; // explicit .ko files (--vm-module)
	std::string vmlinux;                  // "" : /usr/lib/debug/boot/vmlinux-<release> etc.
};
Config &config();

struct Param {
	std::string name;
	std::string type; // C spelling, for -L
	int arg = -1;     // ABI argument register index; -1: not in a register at entry
			  // (tracepoints: the argument's position; -1: not a scalar)
	std::string abi;  // tracepoints: "void *", "bool", "u8".."s64"; "" : not passable
};

struct Function {
	std::string name;
	std::string module; // "" : the kernel
	std::string file;   // declaration file
	int line = 0;
	uint32_t offset = 0; // bytes into the function (func@file:line), 0 at entry
	std::string ret_type; // "void" when none
	bool ret_scalar = false;
	std::vector<Param> params;
	std::string dwarf_file; // the .ko or vmlinux read
	uint64_t die = 0;       // DIE offset in dwarf_file
	bool tracepoint = false; // a tracepoint's prototype (tracequery.h): name is the event
};

// Functions of `module` ("" : kernel) matching `pattern`
// ("glob", "glob@fileglob" or "glob@fileglob:line"). On failure (no DWARF
// file, nothing matches) returns nothing and sets err (and hint).
std::optional<std::vector<Function>> find_functions(const std::string &module,
						    const std::string &pattern, std::string &err,
						    std::string &hint);

// The tracepoint prototypes of a query module (tracequery.h): functions
// named prefix + EVENT defined in `path` whose declaration file ends with
// decl_suffix ("trace/events/sched.h"), sorted by event. Parameters get
// their position as `arg` and their C ABI type as `abi`. On failure returns
// nothing with err set.
std::optional<std::vector<Function>> tracepoint_functions(const std::string &path,
							  const std::string &prefix,
							  const std::string &decl_suffix,
							  std::string &err);

// How a probe body reads a target variable.
struct Access {
	enum Base { Arg, Return, TpArg } base = Arg;
	int arg = 0;                  // Base Arg: argument register index; TpArg: position
	std::vector<int32_t> offsets; // member offsets: each step reads a pointer and adds
	unsigned size = 8;            // bytes of the final value
	bool is_signed = false;
	bool deref_last = false;      // the final value is read from memory
	bool at_entry = false;        // .return: @entry(), the whole value read at entry
};

// Resolves "$name", "$name->field->field", "$return" for f. in_return:
// a .return probe. Returns nothing with err set when it cannot.
std::optional<Access> target_access(const Function &f, const std::string &spelling,
				    bool in_return, std::string &err);

// Why @cast could not be resolved, and which part of it the message is about.
struct CastError {
	enum Part { Module, Type, Member } part = Type;
	size_t member = 0; // Member: index into members
	std::string msg, hint;
};

// @cast(p, type, module)->members...: the offsets read from the address p
// (each step reads a pointer, the last one the value or, for an array or
// struct, gives its address; base and arg are unused). type: "struct NAME",
// "union NAME", or NAME (a typedef, else a struct, else a union); module:
// "kernel", a module name (looked up as module("m") probe points do), a path
// to a .ko, or several separated by ':' (the first that defines the type).
// Returns nothing with e set when it cannot.
std::optional<Access> cast_access(const std::string &module, const std::string &type,
				  const std::vector<std::string> &members, CastError &e);

// "$a:int $b:struct stp_tm_rec*" for -L.
std::string describe_vars(const Function &f, bool in_return);

} // namespace stap_pmu::dwarf
