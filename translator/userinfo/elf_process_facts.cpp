// elf_process_facts.cpp - ElfProcessFacts: finding programs as SystemTap
// does, and the open files behind the other questions.
#include "translator/userinfo/elf_process_facts.h"

#include <algorithm>
#include "translator/support/text.h"
#include "translator/userinfo/binary.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

namespace stap_pmu {

namespace fs = std::filesystem;
using userinfo::Binary;

ElfProcessFacts::ElfProcessFacts(ElfProcessFactsOptions o)
	: opts_(std::move(o)), state_(std::make_unique<State>())
{
}

ElfProcessFacts::~ElfProcessFacts() = default;

namespace {

// The directories a bare program name is looked up in: $PATH, then extra.
std::vector<std::string> search_dirs(const std::vector<std::string> &extra)
{
	std::vector<std::string> dirs;
	const char *path = getenv("PATH");
	std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
	size_t b = 0;
	for (;;) {
		size_t e = p.find(':', b);
		std::string d = p.substr(b, e == std::string::npos ? std::string::npos : e - b);
		dirs.push_back(d.empty() ? "." : d);
		if (e == std::string::npos)
			break;
		b = e + 1;
	}
	dirs.insert(dirs.end(), extra.begin(), extra.end());
	return dirs;
}

bool executable_file(const std::string &p)
{
	struct stat st;
	return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

// The real file behind path (uprobes attach to the inode) if it is an
// executable or shared library of the target's architecture.
Result<std::string> check_file(const std::string &path, Arch arch)
{
	struct stat st;
	if (stat(path.c_str(), &st) != 0)
		return fail(path + ": no such file", "give the path of an executable or shared library");
	if (!S_ISREG(st.st_mode))
		return fail(path + " is not a regular file",
			    "give the path of an executable or shared library");
	std::error_code ec;
	std::string real = fs::canonical(path, ec).string();
	if (ec)
		real = path;
	auto b = userinfo::open_binary(real, {});
	if (!b)
		return b.error();
	if ((*b)->type != ET_EXEC && (*b)->type != ET_DYN)
		return fail(real + " is not an executable or a shared library (ELF type " +
				    std::to_string((*b)->type) + ")",
			    "give a linked program or library; uprobes cannot attach to object files");
	if (arch_of_elf_machine((*b)->machine) != arch)
		return fail(real + " is an " + userinfo::machine_name((*b)->machine) +
				    " ELF file, the target is " + kbuild_arch(arch),
			    "give a program built for the target's architecture");
	return real;
}

} // namespace

// A bare name is the first program of that name in $PATH, then in the extra
// directories, that the target can run (for --vm on arm64, the guest's
// program rather than a host one of the same name); when none can, the
// first one's error.
Result<std::string> ElfProcessFacts::resolve_path(const std::string &name) const
{
	if (name.empty())
		return fail("process(\"\") names no program", "give a path or a program name in $PATH");
	if (name.find('/') != std::string::npos) {
		std::error_code ec;
		fs::path abs = fs::absolute(name, ec);
		return check_file(ec ? name : abs.lexically_normal().string(), opts_.arch);
	}
	std::vector<std::string> dirs = search_dirs(opts_.extra_dirs);
	std::optional<Error> first;
	for (const std::string &d : dirs) {
		std::string cand = fs::absolute(d + "/" + name).lexically_normal().string();
		if (!executable_file(cand))
			continue;
		auto r = check_file(cand, opts_.arch);
		if (r)
			return r;
		if (!first)
			first = r.error();
	}
	if (first)
		return *first;
	return fail("cannot find program \"" + name + "\"",
		    "looked in $PATH and the guest programs: " + text::join(dirs));
}

namespace {

Result<const Binary *> binary_of(ElfProcessFacts::State &st, const std::string &path,
				 const ElfProcessFactsOptions &o)
{
	auto it = st.files.find(path);
	if (it != st.files.end())
		return it->second.get();
	auto b = userinfo::open_binary(path, o.debug_dirs);
	if (!b)
		return b.error();
	const Binary *p = b->get();
	st.files.emplace(path, std::move(*b));
	return p;
}

} // namespace

Result<std::vector<UserFunction>> ElfProcessFacts::functions(const std::string &path,
							      const std::string &pattern,
							      bool call) const
{
	auto b = binary_of(*state_, path, opts_);
	if (!b)
		return b.error();
	return userinfo::find_functions(**b, pattern, call);
}

Result<TargetAccess> ElfProcessFacts::target_access(const UserFunction &f,
						    const std::string &spelling,
						    bool in_return) const
{
	auto b = binary_of(*state_, f.path, opts_);
	if (!b)
		return b.error();
	return userinfo::access_of(**b, opts_.arch, f, spelling, in_return);
}

std::vector<KernelParam> ElfProcessFacts::locals(const UserFunction &f) const
{
	auto b = binary_of(*state_, f.path, opts_);
	return b ? userinfo::locals_of(**b, f) : std::vector<KernelParam>{};
}

Result<std::vector<SdtMark>> ElfProcessFacts::marks(const std::string &path,
						    const std::string &provider,
						    const std::string &name_glob) const
{
	auto b = binary_of(*state_, path, opts_);
	if (!b)
		return b.error();
	return userinfo::find_marks(**b, opts_.arch, provider, name_glob);
}

Result<std::vector<UserFunction>> ElfProcessFacts::plt(const std::string &path,
						       const std::string &glob) const
{
	auto b = binary_of(*state_, path, opts_);
	if (!b)
		return b.error();
	return userinfo::find_plt(**b, glob);
}

Result<UserUnwindData> ElfProcessFacts::unwind_data(const std::string &path) const
{
	auto b = binary_of(*state_, path, opts_);
	if (!b)
		return b.error();
	return userinfo::unwind_data_of(**b, opts_.arch);
}

std::vector<std::string> ElfProcessFacts::needed_libraries(const std::string &path) const
{
	std::vector<std::string> out, todo = {path};
	while (!todo.empty()) {
		std::string p = todo.back();
		todo.pop_back();
		auto b = binary_of(*state_, p, opts_);
		if (!b)
			continue;
		for (const std::string &lib : userinfo::needed_of(**b, opts_.arch))
			if (lib != path && std::find(out.begin(), out.end(), lib) == out.end()) {
				out.push_back(lib);
				todo.push_back(lib);
			}
	}
	return out;
}

} // namespace stap_pmu
