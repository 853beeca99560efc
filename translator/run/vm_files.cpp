// vm_files.cpp - the user files of a --vm run, their interpreters and
// libraries, as initramfs entries at their host paths (see vm_files.h).
#include "translator/run/vm_files.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include "translator/support/file.h"

namespace stap_pmu::vm {

namespace {

bool pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

std::vector<std::string> split_colon(const std::string &s)
{
	std::vector<std::string> v;
	size_t b = 0;
	while (b <= s.size()) {
		size_t e = s.find(':', b);
		if (e == std::string::npos)
			e = s.size();
		if (e > b)
			v.push_back(s.substr(b, e - b));
		b = e + 1;
	}
	return v;
}

// The file offset of link-time address `vaddr` (through the PT_LOAD segments).
bool vaddr_to_offset(const std::vector<Elf64_Phdr> &ph, uint64_t vaddr, uint64_t &off)
{
	for (const Elf64_Phdr &p : ph)
		if (p.p_type == PT_LOAD && vaddr >= p.p_vaddr && vaddr < p.p_vaddr + p.p_filesz) {
			off = vaddr - p.p_vaddr + p.p_offset;
			return true;
		}
	return false;
}

std::string read_cstr(int fd, uint64_t off)
{
	std::string s;
	char buf[256];
	for (;;) {
		ssize_t r = pread(fd, buf, sizeof buf, (off_t)off);
		if (r <= 0)
			return s;
		for (ssize_t i = 0; i < r; i++) {
			if (!buf[i])
				return s;
			s += buf[i];
		}
		off += (uint64_t)r;
		if (s.size() > 4096)
			return s;
	}
}

// DT_NEEDED, DT_RPATH and DT_RUNPATH of the PT_DYNAMIC segment `dyn`.
Status read_dynamic(int fd, const std::vector<Elf64_Phdr> &ph, const Elf64_Phdr &dyn,
		    ElfDeps &d, const std::string &path)
{
	size_t n = dyn.p_filesz / sizeof(Elf64_Dyn);
	if (n > 100000)
		return fail(path + ": a malformed dynamic section");
	std::vector<Elf64_Dyn> ents(n);
	if (n && !pread_all(fd, ents.data(), n * sizeof(Elf64_Dyn), dyn.p_offset))
		return fail(path + ": a truncated dynamic section");
	uint64_t strtab = 0;
	for (const Elf64_Dyn &e : ents)
		if (e.d_tag == DT_STRTAB)
			strtab = e.d_un.d_ptr;
	uint64_t stroff = 0;
	if (!strtab || !vaddr_to_offset(ph, strtab, stroff))
		return {}; // no strings: nothing needed
	for (const Elf64_Dyn &e : ents) {
		if (e.d_tag == DT_NULL)
			break;
		if (e.d_tag == DT_NEEDED)
			d.needed.push_back(read_cstr(fd, stroff + e.d_un.d_val));
		else if (e.d_tag == DT_RPATH)
			d.rpath = split_colon(read_cstr(fd, stroff + e.d_un.d_val));
		else if (e.d_tag == DT_RUNPATH)
			d.runpath = split_colon(read_cstr(fd, stroff + e.d_un.d_val));
	}
	return {};
}

std::string dir_name(const std::string &p)
{
	size_t s = p.rfind('/');
	return s == std::string::npos || s == 0 ? "/" : p.substr(0, s);
}

// "/a/./b/../c" -> "/a/c" (lexically, on an absolute path).
std::string normalize(const std::string &p)
{
	std::vector<std::string> parts;
	size_t b = 0;
	while (b < p.size()) {
		size_t e = p.find('/', b);
		if (e == std::string::npos)
			e = p.size();
		std::string c = p.substr(b, e - b);
		if (c == "..") {
			if (!parts.empty())
				parts.pop_back();
		} else if (!c.empty() && c != ".") {
			parts.push_back(c);
		}
		b = e + 1;
	}
	std::string out;
	for (const std::string &c : parts)
		out += "/" + c;
	return out.empty() ? "/" : out;
}

bool machine_matches(const std::string &path, uint16_t machine)
{
	auto d = read_elf_deps(path);
	return d && d->machine == machine;
}

// The entries being collected: each guest path once, parents first.
class Plan {
public:
	Status place_elf(const std::string &path);
	std::vector<InitramfsEntry> take() { return std::move(entries_); }

private:
	Result<std::string> place(const std::string &path, int depth);
	void add_dir(const std::string &rel);

	std::vector<InitramfsEntry> entries_;
	std::set<std::string> seen_;  // guest paths (no leading '/') already listed
	std::set<std::string> elves_; // host files whose dependencies are placed
};

void Plan::add_dir(const std::string &rel)
{
	if (seen_.insert(rel).second)
		entries_.push_back({rel, "", "", 0755, true, ""});
}

// Makes `path` reach the same content in the guest; returns the host path of
// the file itself (symbolic links followed).
Result<std::string> Plan::place(const std::string &path, int depth)
{
	if (depth > 40)
		return fail(path + ": too many levels of symbolic links");
	std::string cur;
	size_t b = 1;
	while (b <= path.size()) {
		size_t e = path.find('/', b);
		bool last = e == std::string::npos;
		if (last)
			e = path.size();
		std::string comp = path.substr(b, e - b);
		std::string rel = cur.empty() ? comp : cur.substr(1) + "/" + comp;
		cur += "/" + comp;
		struct stat st;
		if (lstat(cur.c_str(), &st) != 0)
			return fail(cur + ": " + strerror(errno));
		bool top = cur.find('/', 1) == std::string::npos;
		if (S_ISLNK(st.st_mode) && !(top && guest_reserved_top(comp))) {
			char buf[4096];
			ssize_t n = readlink(cur.c_str(), buf, sizeof buf - 1);
			if (n < 0)
				return fail(cur + ": " + strerror(errno));
			std::string target(buf, (size_t)n);
			if (seen_.insert(rel).second)
				entries_.push_back({rel, "", "", 0777, false, target});
			std::string next = target[0] == '/' ? target : dir_name(cur) + "/" + target;
			if (!last)
				next += path.substr(e);
			return place(normalize(next), depth + 1);
		}
		if (last) {
			if (!S_ISREG(st.st_mode))
				return fail(cur + ": not a regular file");
			if (seen_.insert(rel).second)
				entries_.push_back({rel, cur, "", st.st_mode & 0777, false, ""});
			return cur;
		}
		add_dir(rel);
		b = e + 1;
	}
	return fail(path + ": not a file path");
}

// The file, then (for an ELF) its interpreter and libraries, recursively.
Status Plan::place_elf(const std::string &path)
{
	auto real = place(path, 0);
	if (!real)
		return real.error();
	if (!elves_.insert(*real).second)
		return {};
	auto deps = read_elf_deps(*real);
	if (!deps)
		return {}; // not an ELF we read (a script, say): the file alone
	if (!deps->interp.empty()) {
		Status s = place_elf(deps->interp);
		if (!s)
			return fail("the interpreter of " + path + ": " + s.error().what);
	}
	for (const std::string &lib : deps->needed) {
		std::string found = find_library(lib, *real, *deps);
		if (found.empty())
			return fail("cannot find " + lib + ", which " + path + " needs",
				    "install it on the host: --vm copies the host's libraries into the guest");
		Status s = place_elf(found);
		if (!s)
			return s;
	}
	return {};
}

} // namespace

bool guest_reserved_top(const std::string &name)
{
	static const std::set<std::string> names = {"bin", "sbin", "proc", "sys", "dev", "tmp",
						    "etc", kGuestDir, "init"};
	return names.count(name) != 0;
}

Result<ElfDeps> read_elf_deps(const std::string &path)
{
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(path + ": " + strerror(errno));
	struct Closer {
		int fd;
		~Closer() { close(fd); }
	} closer{fd};
	Elf64_Ehdr eh;
	if (!pread_all(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
		return fail(path + ": not an ELF file");
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return fail(path + ": not a 64-bit little-endian ELF file");
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 4096)
		return fail(path + ": malformed ELF program headers");
	std::vector<Elf64_Phdr> ph(eh.e_phnum);
	if (eh.e_phnum && !pread_all(fd, ph.data(), ph.size() * sizeof(Elf64_Phdr), eh.e_phoff))
		return fail(path + ": truncated ELF program headers");
	ElfDeps d;
	d.machine = eh.e_machine;
	for (const Elf64_Phdr &p : ph) {
		if (p.p_type == PT_INTERP)
			d.interp = read_cstr(fd, p.p_offset);
		if (p.p_type == PT_DYNAMIC) {
			Status s = read_dynamic(fd, ph, p, d, path);
			if (!s)
				return s.error();
		}
	}
	return d;
}

std::vector<std::string> library_dirs(uint16_t machine)
{
	std::string triplet = machine == EM_AARCH64 ? "aarch64-linux-gnu" : "x86_64-linux-gnu";
	std::vector<std::string> dirs = {"/lib/" + triplet, "/usr/lib/" + triplet};
	// what ldconfig adds (/usr/local/lib, ...): the lines naming directories
	if (DIR *d = opendir("/etc/ld.so.conf.d")) {
		std::set<std::string> confs;
		while (dirent *e = readdir(d)) {
			std::string n = e->d_name;
			if (n.size() > 5 && n.compare(n.size() - 5, 5, ".conf") == 0)
				confs.insert("/etc/ld.so.conf.d/" + n);
		}
		closedir(d);
		for (const std::string &c : confs) {
			std::ifstream f(c);
			std::string line;
			while (std::getline(f, line))
				if (!line.empty() && line[0] == '/')
					dirs.push_back(line);
		}
	}
	for (const char *p : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"})
		dirs.push_back(p);
	return dirs;
}

std::string find_library(const std::string &name, const std::string &path, const ElfDeps &deps)
{
	auto usable = [&](const std::string &p) {
		return access(p.c_str(), R_OK) == 0 && machine_matches(p, deps.machine);
	};
	if (name.find('/') != std::string::npos)
		return name[0] == '/' && usable(name) ? name : "";
	std::vector<std::string> dirs = deps.runpath.empty() ? deps.rpath : std::vector<std::string>{};
	dirs.insert(dirs.end(), deps.runpath.begin(), deps.runpath.end());
	std::vector<std::string> std_dirs = library_dirs(deps.machine);
	dirs.insert(dirs.end(), std_dirs.begin(), std_dirs.end());
	for (std::string d : dirs) {
		for (const char *tok : {"$ORIGIN", "${ORIGIN}"})
			for (size_t o; (o = d.find(tok)) != std::string::npos;)
				d.replace(o, strlen(tok), dir_name(path));
		if (d.empty() || d[0] != '/')
			continue;
		std::string cand = normalize(d + "/" + name);
		if (usable(cand))
			return cand;
	}
	return "";
}

Result<std::vector<InitramfsEntry>> user_file_entries(const std::vector<std::string> &files)
{
	Plan plan;
	for (const std::string &f : files) {
		if (f.empty() || f[0] != '/')
			return fail("--vm: the probed file " + f + " is not an absolute path");
		Status s = plan.place_elf(normalize(f));
		if (!s)
			return Error{"--vm: " + s.error().what, s.error().hint};
	}
	return plan.take();
}

} // namespace stap_pmu::vm

namespace stap_pmu::vm {

Result<std::vector<InitramfsEntry>> guest_entries(const VmOptions &o)
{
	std::vector<InitramfsEntry> v;
	std::set<std::string> paths;
	for (InitramfsEntry &e : initramfs_entries(o)) {
		// uprobe-target is optional (a build without <sys/sdt.h> has none)
		if (!o.uprobe_target_path.empty() && e.source == o.uprobe_target_path &&
		    access(e.source.c_str(), R_OK) != 0)
			continue;
		paths.insert(e.path);
		v.push_back(std::move(e));
	}
	// the dynamic uprobe-target runs in every guest: its loader and libraries
	std::vector<std::string> files = o.user_files;
	if (!o.uprobe_target_path.empty() && access(o.uprobe_target_path.c_str(), R_OK) == 0)
		files.push_back(o.uprobe_target_path);
	auto user = user_file_entries(files);
	if (!user)
		return user.error();
	for (InitramfsEntry &e : *user)
		if (paths.insert(e.path).second)
			v.push_back(std::move(e));
	return v;
}

} // namespace stap_pmu::vm
