// btf.cpp - BTF through libbpf (the only file that includes it), finding a
// kernel's BTF and a module's .ko.
#include "translator/kernelinfo/btf.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/support/file.h"
#include "translator/support/process.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace stap_pmu::btf {

namespace fs = std::filesystem;

namespace {

// libbpf reports its failures on stderr; ours are values.
int quiet(enum libbpf_print_level, const char *, va_list)
{
	return 0;
}

void silence_libbpf()
{
	static const bool once = (libbpf_set_print(quiet), true);
	(void)once;
}

Kind kind_of(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT: return Kind::Int;
	case BTF_KIND_PTR: return Kind::Ptr;
	case BTF_KIND_ARRAY: return Kind::Array;
	case BTF_KIND_STRUCT: return Kind::Struct;
	case BTF_KIND_UNION: return Kind::Union;
	case BTF_KIND_ENUM: return Kind::Enum;
	case BTF_KIND_FWD: return Kind::Fwd;
	case BTF_KIND_TYPEDEF: return Kind::Typedef;
	case BTF_KIND_VOLATILE: return Kind::Volatile;
	case BTF_KIND_CONST: return Kind::Const;
	case BTF_KIND_RESTRICT: return Kind::Restrict;
	case BTF_KIND_FUNC: return Kind::Func;
	case BTF_KIND_FUNC_PROTO: return Kind::FuncProto;
	case BTF_KIND_VAR: return Kind::Var;
	case BTF_KIND_DATASEC: return Kind::DataSec;
	case BTF_KIND_FLOAT: return Kind::Float;
	case BTF_KIND_DECL_TAG: return Kind::DeclTag;
	case BTF_KIND_TYPE_TAG: return Kind::TypeTag;
	case BTF_KIND_ENUM64: return Kind::Enum64;
	default: return Kind::Unknown;
	}
}

int libbpf_kind(Kind k)
{
	switch (k) {
	case Kind::Struct: return BTF_KIND_STRUCT;
	case Kind::Union: return BTF_KIND_UNION;
	case Kind::Typedef: return BTF_KIND_TYPEDEF;
	case Kind::Func: return BTF_KIND_FUNC;
	case Kind::Enum: return BTF_KIND_ENUM;
	case Kind::Enum64: return BTF_KIND_ENUM64;
	case Kind::Fwd: return BTF_KIND_FWD;
	case Kind::Int: return BTF_KIND_INT;
	default: return -1;
	}
}

std::string errno_text(int e)
{
	return strerror(e < 0 ? -e : e);
}

uint32_t get32(std::string_view d, size_t at)
{
	uint32_t v;
	memcpy(&v, d.data() + at, 4);
	return v; // little-endian hosts and targets (x86-64, arm64)
}

// A file mapped read-only (empty when it cannot be).
class Mapped {
public:
	explicit Mapped(const std::string &path)
	{
		int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd < 0)
			return;
		if (fstat(fd, &st) == 0 && st.st_size > 0) {
			void *p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
			if (p != MAP_FAILED) {
				data_ = static_cast<const char *>(p);
				size_ = static_cast<size_t>(st.st_size);
			}
		}
		err_ = errno;
		::close(fd);
	}
	~Mapped()
	{
		if (data_)
			munmap(const_cast<char *>(data_), size_);
	}
	Mapped(const Mapped &) = delete;
	Mapped &operator=(const Mapped &) = delete;

	bool ok() const { return data_ != nullptr; }
	int error() const { return err_; }
	std::string_view view() const { return {data_, size_}; }

private:
	const char *data_ = nullptr;
	size_t size_ = 0;
	int err_ = 0;
};

// A raw kernel image: the BTF blob found in it, parsed.
Result<struct ::btf *> parse_image(const std::string &path)
{
	Mapped m(path);
	if (!m.ok())
		return fail("cannot read " + path + ": " + strerror(m.error()));
	std::optional<Blob> b = find_blob(m.view());
	if (!b)
		return fail("no BTF found in " + path +
			    " (not an ELF file, raw BTF or uncompressed kernel image with BTF)");
	struct ::btf *r = btf__new(m.view().data() + b->offset, static_cast<uint32_t>(b->size));
	if (!r)
		return fail("cannot parse the BTF in " + path + ": " + errno_text(errno));
	return r;
}

} // namespace

std::optional<Blob> find_blob(std::string_view data)
{
	static const char magic[] = {'\x9f', '\xeb', 1, 0}; // 0xeB9F, version 1, flags 0
	for (size_t at = data.find(std::string_view(magic, 4)); at != std::string_view::npos;
	     at = data.find(std::string_view(magic, 4), at + 1)) {
		if (data.size() - at < 24 || get32(data, at + 4) != 24)
			continue;
		uint64_t type_off = get32(data, at + 8), type_len = get32(data, at + 12);
		uint64_t str_off = get32(data, at + 16), str_len = get32(data, at + 20);
		uint64_t end = 24 + std::max(type_off + type_len, str_off + str_len);
		// types first, then strings (as the kernel's BTF is laid out)
		if (type_len == 0 || str_len == 0 || type_off != 0 || str_off < type_len ||
		    end > data.size() - at || type_len % 4 != 0)
			continue;
		// the string section starts with "" (offset 0 names nothing)
		if (data[at + 24 + str_off] != '\0' || data[at + 24 + str_off + str_len - 1] != '\0')
			continue;
		return Blob{at, static_cast<size_t>(end)};
	}
	return std::nullopt;
}

Btf::Btf(struct ::btf *b, std::string path, uint32_t first)
	: btf_(b), path_(std::move(path)), first_(first)
{
}

Btf::~Btf()
{
	btf__free(btf_);
}

Result<std::unique_ptr<Btf>> Btf::open(const std::string &path)
{
	silence_libbpf();
	std::optional<std::string> head = sys::read_file(path, 4);
	if (!head)
		return fail("cannot read " + path + ": " + strerror(errno));
	struct ::btf *b = nullptr;
	if (head->rfind("\x7f" "ELF", 0) == 0) {
		b = btf__parse_elf(path.c_str(), nullptr);
		if (!b)
			return fail(errno == ENOENT ? path + " has no BTF (no .BTF section)"
						    : "cannot read the BTF of " + path + ": " +
							      errno_text(errno));
	} else if (head->rfind("\x9f\xeb", 0) == 0) {
		b = btf__parse_raw(path.c_str());
		if (!b)
			return fail("cannot read the BTF of " + path + ": " + errno_text(errno));
	} else {
		Result<struct ::btf *> r = parse_image(path);
		if (!r)
			return r.error();
		b = *r;
	}
	return std::unique_ptr<Btf>(new Btf(b, path, 1));
}

namespace {

// The program that decompresses a module file ("" : not compressed).
std::string decompressor(const std::string &path)
{
	auto ends = [&](const char *ext) {
		size_t n = strlen(ext);
		return path.size() > n && path.compare(path.size() - n, n, ext) == 0;
	};
	return ends(".ko.xz") ? "xz" : ends(".ko.zst") ? "zstd" : ends(".ko.gz") ? "gzip" : "";
}

// A compressed .ko decompressed into dir: the file's path there.
Result<std::string> decompress(const std::string &path, const std::string &tool,
			       const std::string &dir)
{
	std::string out = dir + "/module.ko";
	sys::Fd o(::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
	if (!o)
		return fail("cannot create " + out + ": " + strerror(errno));
	sys::Spawn sp;
	sp.argv = {tool, "-dc", path};
	sp.out = o.get();
	Result<int> st = sys::run(sp, 120);
	if (!st)
		return fail("cannot decompress " + path + ": " + st.error().what);
	if (*st != 0)
		return fail(tool + " -dc " + path + " " + sys::describe_wait(*st));
	return out;
}

} // namespace

Result<std::unique_ptr<Btf>> Btf::open_split(const std::string &path, const Btf &base)
{
	silence_libbpf();
	if (!fs::is_regular_file(path))
		return fail("cannot read " + path + ": " + errno_text(ENOENT));
	std::string file = path;
	std::optional<sys::TempDir> tmp;
	if (std::string tool = decompressor(path); !tool.empty()) {
		Result<sys::TempDir> d = sys::TempDir::create("stap-pmu-ko");
		if (!d)
			return d.error();
		tmp.emplace(std::move(*d));
		Result<std::string> f = decompress(path, tool, tmp->path());
		if (!f)
			return f.error();
		file = *f;
	}
	struct ::btf *b = btf__parse_split(file.c_str(), base.btf_);
	if (!b) {
		int e = errno;
		return fail(e == ENOENT ? path + " has no BTF (no .BTF section)"
					: "cannot read the BTF of " + path + ": " + errno_text(e));
	}
	return std::unique_ptr<Btf>(new Btf(b, path, btf__type_cnt(base.btf_)));
}

uint32_t Btf::end_id() const
{
	return btf__type_cnt(btf_);
}

Type Btf::type(uint32_t id) const
{
	Type r;
	const struct btf_type *t = id ? btf__type_by_id(btf_, id) : nullptr;
	if (!t)
		return r;
	r.kind = kind_of(t);
	const char *nm = btf__name_by_offset(btf_, t->name_off);
	r.name = nm ? nm : "";
	switch (r.kind) {
	case Kind::Int:
		r.size = t->size;
		r.bits = btf_int_bits(t);
		r.is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		r.is_bool = btf_int_encoding(t) & BTF_INT_BOOL;
		break;
	case Kind::Float:
	case Kind::Struct:
	case Kind::Union:
		r.size = t->size;
		break;
	case Kind::Enum:
	case Kind::Enum64:
		r.size = t->size;
		r.is_signed = btf_kflag(t);
		break;
	case Kind::Array:
		r.ref = btf_array(t)->type;
		r.size = btf_array(t)->nelems;
		break;
	case Kind::Func:
		r.ref = t->type;
		r.linkage = btf_vlen(t);
		break;
	case Kind::Fwd:
		r.fwd_union = btf_kflag(t);
		break;
	case Kind::Ptr: case Kind::Typedef: case Kind::Volatile: case Kind::Const:
	case Kind::Restrict: case Kind::FuncProto: case Kind::Var: case Kind::TypeTag:
	case Kind::DeclTag:
		r.ref = t->type;
		break;
	default:
		break;
	}
	return r;
}

std::vector<Member> Btf::members(uint32_t id) const
{
	std::vector<Member> out;
	const struct btf_type *t = btf__type_by_id(btf_, id);
	if (!t || !btf_is_composite(t))
		return out;
	const struct btf_member *m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++) {
		const char *nm = btf__name_by_offset(btf_, m[i].name_off);
		out.push_back(Member{nm ? nm : "", m[i].type, btf_member_bit_offset(t, i),
				     btf_member_bitfield_size(t, i)});
	}
	return out;
}

std::vector<Param> Btf::params(uint32_t id) const
{
	std::vector<Param> out;
	const struct btf_type *t = btf__type_by_id(btf_, id);
	if (!t || !btf_is_func_proto(t))
		return out;
	const struct btf_param *p = btf_params(t);
	for (int i = 0; i < btf_vlen(t); i++) {
		const char *nm = btf__name_by_offset(btf_, p[i].name_off);
		out.push_back(Param{nm ? nm : "", p[i].type});
	}
	return out;
}

uint32_t Btf::find(const std::string &name, Kind kind) const
{
	int k = libbpf_kind(kind);
	if (k < 0)
		return 0;
	if (names_.empty()) {
		uint32_t end = end_id();
		for (uint32_t id = 1; id < end; id++) {
			const struct btf_type *t = btf__type_by_id(btf_, id);
			const char *nm = t ? btf__name_by_offset(btf_, t->name_off) : nullptr;
			if (nm && *nm)
				names_.try_emplace(std::to_string(btf_kind(t)) + ":" + nm, id);
		}
	}
	// as btf__find_by_name_kind: "void" is no type (id 0)
	auto it = names_.find(std::to_string(k) + ":" + name);
	return it != names_.end() && name != "void" ? it->second : 0;
}

std::optional<uint64_t> Btf::size_of(uint32_t id) const
{
	__s64 n = btf__resolve_size(btf_, id);
	if (n < 0)
		return std::nullopt;
	return static_cast<uint64_t>(n);
}

// ---- where the BTF is ----

namespace {

std::string running_release()
{
	struct utsname u;
	return uname(&u) == 0 ? u.release : "";
}

} // namespace

Result<std::string> kernel_btf_source(const std::string &release, Arch arch)
{
	const std::string sys_btf = "/sys/kernel/btf/vmlinux";
	bool host = arch == host_arch();
	if (host && (release.empty() || release == running_release()) &&
	    access(sys_btf.c_str(), R_OK) == 0)
		return sys_btf;
	std::string rel = release.empty() ? running_release() : release;
	if (host) {
		Result<kernel::GuestKernel> k = kernel::find_guest_kernel(rel, true);
		if (!k)
			return fail("kernel.function needs the kernel's BTF: " + k.error().what,
				    k.error().hint);
		if (k->vmlinux.empty())
			return fail("kernel.function needs the kernel's BTF: cannot extract vmlinux from " +
					    k->vmlinuz,
				    "give a vmlinux with --vmlinux FILE");
		return k->vmlinux;
	}
	Result<kernel::GuestKernel> k = kernel::find_foreign_kernel(arch, release);
	if (!k)
		return fail("kernel.function needs the kernel's BTF: " + k.error().what, k.error().hint);
	return k->vmlinuz;
}

namespace {

std::string norm_mod(std::string s)
{
	std::replace(s.begin(), s.end(), '-', '_');
	return s;
}

// f is name.ko, compressed or not
bool is_ko_of(const fs::path &p, const std::string &name)
{
	std::string f = p.filename().string();
	for (std::string ext : {".ko", ".ko.xz", ".ko.zst", ".ko.gz"})
		if (f.size() > ext.size() && f.compare(f.size() - ext.size(), ext.size(), ext) == 0)
			return norm_mod(f.substr(0, f.size() - ext.size())) == norm_mod(name);
	return false;
}

} // namespace

std::string find_module(const Options &o, const std::string &name, std::string *looked_in)
{
	for (const std::string &f : o.module_files)
		if (is_ko_of(f, name))
			return f;
	std::vector<std::string> dirs = o.module_dirs;
	dirs.push_back(kernel::modules_dir(o.release));
	if (looked_in) {
		looked_in->clear();
		for (size_t i = 0; i < dirs.size(); i++)
			*looked_in += (i ? ", " : "") + dirs[i];
	}
	for (const std::string &dir : dirs) {
		std::error_code ec;
		for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec),
		     end;
		     !ec && it != end; it.increment(ec))
			if (it->is_regular_file(ec) && is_ko_of(it->path(), name))
				return it->path().string();
	}
	return "";
}

} // namespace stap_pmu::btf
