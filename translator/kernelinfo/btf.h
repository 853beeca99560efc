// btf.h - the kernel's BTF (BPF Type Format: every struct, union, enum,
// typedef and non-inlined function prototype, carried by stock kernels) read
// through libbpf, as plain values: type ids, kinds, names, members and
// parameters. btf.cpp is the only code that includes libbpf; btf_facts.cpp
// answers pass 2's questions with what this gives.
//
// Where a kernel's BTF is: the .BTF section of an ELF vmlinux (extracted
// from the installed vmlinuz), /sys/kernel/btf/vmlinux (raw BTF of the
// running kernel), or inside a raw kernel Image (arm64), found by its
// header. A module's BTF is the .BTF section of its .ko, "split" BTF whose
// ids continue the kernel's.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "translator/support/arch.h"
#include "translator/support/result.h"

struct btf; // libbpf's

namespace stap_pmu::btf {

// Where BtfKernelFacts looks up BTF.
struct Options {
	std::string release;                   // target kernel release (/lib/modules/<release>)
	Arch arch = host_arch();               // the target kernel's
	std::string btf_file;                  // "" : kernel_btf_source(release, arch)
	std::vector<std::string> module_dirs;  // searched first (recursively) for <name>.ko
	std::vector<std::string> module_files; // explicit .ko files (--vm-module)
	bool use_cache = true; // reserved for an on-disk index (parsing takes ~10 ms: none yet)
};

enum class Kind {
	Void, Int, Ptr, Array, Struct, Union, Enum, Fwd, Typedef, Volatile, Const, Restrict,
	Func, FuncProto, Var, DataSec, Float, DeclTag, TypeTag, Enum64, Unknown
};

// One BTF type, decoded.
struct Type {
	Kind kind = Kind::Void;
	std::string_view name;  // "" : anonymous (valid while the Btf lives)
	uint32_t ref = 0;       // the type it names: pointee, typedef's or qualifier's
				// type, array element, FUNC's prototype, FUNC_PROTO's
				// return type (0: void)
	uint64_t size = 0;      // bytes: Int, Float, Enum, Enum64, Struct, Union;
				// Array: the element count
	bool is_signed = false; // Int: signed encoding; Enum, Enum64: signed values
	bool is_bool = false;   // Int: _Bool
	unsigned bits = 0;      // Int: value bits (size * 8 unless a bit-field type)
	int linkage = 0;        // Func: 0 static, 1 global, 2 extern
	bool fwd_union = false; // Fwd: of a union
};

// A member of a struct or union.
struct Member {
	std::string_view name; // "" : an anonymous struct or union
	uint32_t type = 0;
	uint32_t bit_offset = 0;
	uint32_t bit_size = 0; // 0 : not a bit field
};

// A parameter of a FUNC_PROTO.
struct Param {
	std::string_view name;
	uint32_t type = 0; // 0 with no name: "..." (variadic)
};

// One parsed BTF, a kernel's or a module's (split on its kernel's, which
// must outlive it).
class Btf {
public:
	// An ELF file with a .BTF section, a raw BTF file, or a raw kernel
	// image holding one.
	static Result<std::unique_ptr<Btf>> open(const std::string &path);
	// The BTF of a module: the .BTF section of a .ko (.ko.xz, .ko.zst and
	// .ko.gz are decompressed first, into $TMPDIR), or a raw split BTF file
	// (/sys/kernel/btf/<module>), on top of base.
	static Result<std::unique_ptr<Btf>> open_split(const std::string &path, const Btf &base);

	~Btf();
	Btf(const Btf &) = delete;
	Btf &operator=(const Btf &) = delete;

	const std::string &path() const { return path_; }
	// Ids of this BTF's own types: [first_id(), end_id()). A split BTF
	// also answers for its base's ids below first_id().
	uint32_t first_id() const { return first_; }
	uint32_t end_id() const;

	Type type(uint32_t id) const;
	std::vector<Member> members(uint32_t id) const; // Struct, Union
	std::vector<Param> params(uint32_t id) const;   // FuncProto
	// The first type named `name` of kind (base types included); 0: none.
	uint32_t find(const std::string &name, Kind kind) const;
	// The size in bytes of a value of type id (arrays: all elements).
	std::optional<uint64_t> size_of(uint32_t id) const;

private:
	Btf(struct ::btf *b, std::string path, uint32_t first);
	struct ::btf *btf_;
	std::string path_;
	uint32_t first_;
	// "KIND:name" -> the first id, built on the first find(): libbpf's
	// lookup is a scan of every type, and pass 2 asks once per function
	// and target variable (syscall.*.return: thousands of times)
	mutable std::unordered_map<std::string, uint32_t> names_;
};

// The offset of a BTF blob (a little-endian BTF header: magic 0xeB9F,
// version 1, 24-byte header, type and string sections inside the data) in
// data, and its total size.
struct Blob {
	size_t offset = 0;
	size_t size = 0;
};
std::optional<Blob> find_blob(std::string_view data);

// The file holding the BTF of kernel `release` for kbuild ARCH `arch`:
// /sys/kernel/btf/vmlinux when that kernel runs here, else the vmlinux
// extracted from the installed vmlinuz (host arch), else the raw Image of
// an unpacked foreign (arm64) kernel.
Result<std::string> kernel_btf_source(const std::string &release, Arch arch);

// The .ko (or .ko.xz, .ko.zst, .ko.gz) of module `name` ('-' and '_'
// alike): module_files, then
// module_dirs and /lib/modules/<release> searched recursively; "" : none.
// looked_in: the directories searched, for messages ("a, b").
std::string find_module(const Options &o, const std::string &name, std::string *looked_in);

} // namespace stap_pmu::btf
