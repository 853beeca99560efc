// syscalls.cpp - system call prototypes from include/linux/syscalls.h and
// the syscall.* / nd_syscall.* tapset text made from them.
#include "translator/kernelinfo/syscalls.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <unistd.h>
#include <filesystem>
#include <sstream>
#include <utility>

#include "translator/kernelinfo/btf.h"
#include "translator/kernelinfo/kallsyms.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/kernelinfo/target_facts.h"
#include "translator/support/arch.h"
#include "translator/support/file.h"
#include "translator/support/text.h"

namespace stap_pmu::syscalls {

namespace {

using text::trim;

bool is_file(const std::string &p)
{
	std::error_code ec;
	return std::filesystem::is_regular_file(p, ec);
}

// text with /* */ and // comments blanked (newlines kept)
std::string strip_comments(std::string_view t)
{
	std::string out(t);
	for (size_t i = 0; i + 1 < out.size(); i++) {
		if (out[i] == '/' && out[i + 1] == '*') {
			size_t e = out.find("*/", i + 2);
			e = e == std::string::npos ? out.size() : e + 2;
			for (size_t k = i; k < e; k++)
				if (out[k] != '\n')
					out[k] = ' ';
			i = e - 1;
		} else if (out[i] == '/' && out[i + 1] == '/') {
			for (; i < out.size() && out[i] != '\n'; i++)
				out[i] = ' ';
		}
	}
	return out;
}

// A preprocessor condition: 1 true, 0 false, -1 not known. Only
// CONFIG_X, defined(CONFIG_X) and their negation with '!' are known.
int condition(std::string c, const KernelConfig &config)
{
	c = trim(c);
	bool neg = false;
	if (!c.empty() && c[0] == '!') {
		neg = true;
		c = trim(c.substr(1));
	}
	if (c.rfind("defined", 0) == 0) {
		c = trim(c.substr(7));
		if (c.size() < 2 || c.front() != '(' || c.back() != ')')
			return -1;
		c = trim(c.substr(1, c.size() - 2));
	}
	if (c.rfind("CONFIG_", 0) != 0 ||
	    !std::all_of(c.begin(), c.end(), [](char ch) { return isalnum((unsigned char)ch) || ch == '_'; }))
		return -1;
	// its prototypes are the wrappers' arguments: read them
	std::optional<std::string_view> v = config.get(c);
	bool set = c != "CONFIG_ARCH_HAS_SYSCALL_WRAPPER" && v && *v != "n";
	return set != neg;
}

struct Cond {
	bool active;     // this branch's lines are read
	bool taken;      // an earlier branch was known true
	bool outer;      // the enclosing block is active
};

// The code (no preprocessor lines, continuations included) that config selects.
std::string active_code(std::string_view text, const KernelConfig &config)
{
	std::string code = strip_comments(text), out;
	std::vector<Cond> stack;
	std::istringstream in(code);
	std::string line;
	bool cont = false; // inside a preprocessor line's continuation
	while (std::getline(in, line)) {
		std::string t = trim(line);
		bool directive = cont || (!t.empty() && t[0] == '#');
		cont = directive && !t.empty() && t.back() == '\\';
		if (!directive) {
			if (stack.empty() || stack.back().active)
				out += line + "\n";
			continue;
		}
		if (t[0] != '#')
			continue;
		std::string d = trim(t.substr(1));
		size_t sp = d.find_first_of(" \t(");
		std::string word = d.substr(0, sp), arg = sp == std::string::npos ? "" : d.substr(sp);
		bool outer = stack.empty() || stack.back().active;
		if (word == "if" || word == "ifdef" || word == "ifndef") {
			int v = word == "if" ? condition(arg, config)
					     : condition((word == "ifndef" ? "!" : "") + arg, config);
			stack.push_back({outer && v != 0, v == 1, outer});
		} else if ((word == "elif" || word == "else") && !stack.empty()) {
			Cond &c = stack.back();
			int v = word == "else" ? 1 : condition(arg, config);
			c.active = c.outer && !c.taken && v != 0;
			c.taken |= v == 1;
		} else if (word == "endif" && !stack.empty()) {
			stack.pop_back();
		}
	}
	return out;
}

bool is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

Arg parse_arg(std::string a, size_t index)
{
	a = trim(a);
	size_t e = a.size();
	while (e && is_ident(a[e - 1]))
		e--;
	std::string last = a.substr(e);
	static const std::set<std::string> type_words = {"int", "long", "char", "short",
							 "unsigned", "signed"};
	bool named = e > 0 && !last.empty() && !type_words.count(last) &&
		     a.find_first_not_of(" \t", 0) < e && trim(a.substr(0, e)) != "struct" &&
		     trim(a.substr(0, e)) != "union";
	if (!named)
		return {a, "arg" + std::to_string(index + 1)};
	return {trim(a.substr(0, e)), last};
}

std::vector<Arg> parse_args(const std::string &list)
{
	std::vector<Arg> args;
	std::string t = trim(list);
	if (t.empty() || t == "void")
		return args;
	std::string cur;
	for (char c : t) {
		if (c == ',') {
			args.push_back(parse_arg(cur, args.size()));
			cur.clear();
		} else {
			cur += c == '\n' || c == '\t' ? ' ' : c;
		}
	}
	args.push_back(parse_arg(cur, args.size()));
	return args;
}

} // namespace

std::vector<Syscall> parse_prototypes(std::string_view text,
				      const KernelConfig &config)
{
	std::string code = active_code(text, config);
	std::vector<Syscall> out;
	std::set<std::string> seen;
	const std::string key = "asmlinkage long sys_";
	for (size_t p = code.find(key); p != std::string::npos; p = code.find(key, p + 1)) {
		size_t n = p + key.size(), e = n;
		while (e < code.size() && is_ident(code[e]))
			e++;
		size_t open = code.find_first_not_of(" \t\n", e);
		if (open == std::string::npos || code[open] != '(')
			continue;
		size_t close = code.find(')', open);
		if (close == std::string::npos)
			break;
		Syscall s;
		s.name = code.substr(n, e - n);
		s.args = parse_args(code.substr(open + 1, close - open - 1));
		if (seen.insert(s.name).second)
			out.push_back(std::move(s));
	}
	return out;
}

Result<std::string> find_header(const std::string &tree)
{
	std::string own = tree + "/include/linux/syscalls.h";
	if (is_file(own))
		return own;
	// Debian: the arch tree's Makefile is "include <common tree>/Makefile"
	std::optional<std::string> mk = sys::read_file(tree + "/Makefile");
	if (mk) {
		std::istringstream in(*mk);
		std::string line;
		while (std::getline(in, line)) {
			if (line.rfind("include ", 0) != 0)
				continue;
			std::string inc = trim(line.substr(8));
			size_t slash = inc.rfind('/');
			if (slash == std::string::npos)
				continue;
			std::string h = inc.substr(0, slash) + "/include/linux/syscalls.h";
			if (is_file(h))
				return h;
		}
	}
	return fail("no include/linux/syscalls.h in the kernel tree " + tree,
		    "install the kernel's headers package, which carries it");
}

std::string wrapper_prefix(Arch arch)
{
	return arch == Arch::Arm64 ? "__arm64_sys_" : "__x64_sys_";
}

namespace {

// How an argument is read from its register and printed in argstr.
enum class Kind { S32, U32, U16, Long, ULong, Ptr };

Kind kind_of(const std::string &type)
{
	if (type.find('*') != std::string::npos)
		return Kind::Ptr;
	std::string t = type;
	for (const char *w : {"const", "volatile", "__user"})
		for (size_t p; (p = t.find(w)) != std::string::npos;)
			t.erase(p, strlen(w));
	t = trim(t);
	static const std::set<std::string> s32 = {"int", "signed int", "pid_t", "key_serial_t",
						  "timer_t", "clockid_t", "mqd_t", "rwf_t",
						  "__s32", "s32", "old_timer_t"};
	static const std::set<std::string> u32 = {"unsigned int", "unsigned", "u32", "__u32",
						  "uid_t", "gid_t", "qid_t", "__kernel_old_uid_t"};
	static const std::set<std::string> u16 = {"umode_t", "unsigned short", "old_uid_t",
						  "old_gid_t", "u16"};
	static const std::set<std::string> slong = {"long", "loff_t", "off_t", "ssize_t",
						    "s64", "__s64", "long long"};
	if (s32.count(t))
		return Kind::S32;
	if (u32.count(t))
		return Kind::U32;
	if (u16.count(t))
		return Kind::U16;
	if (slong.count(t))
		return Kind::Long;
	return Kind::ULong;
}

// SystemTap's names for the arguments of common calls (its tapsets'
// names), the variables it derives from them (statements run after the
// arguments are read: the strings a call names, its flags as text) and the
// argstr it prints (nullptr: the arguments in order).
struct Rename {
	const char *call;
	size_t nargs;
	std::vector<const char *> names;
	std::vector<const char *> derived = {};
	const char *argstr = nullptr;
};

// A user string argument, quoted as SystemTap's argstr shows it.
#define USTR(v) v " = user_string_quoted(" v "_uaddr)"

const std::vector<Rename> &renames()
{
	static const std::vector<Rename> r = {
		{"read", 3, {"fd", "buf_uaddr", "count"}},
		{"write", 3, {"fd", "buf_uaddr", "count"}},
		{"pread64", 4, {"fd", "buf_uaddr", "count", "offset"}},
		{"pwrite64", 4, {"fd", "buf_uaddr", "count", "offset"}},
		{"open", 3, {"filename_uaddr", "flags", "mode"},
		 {USTR("filename"), "flags_str = _sys_open_flag_str(flags)",
		  "mode_str = _sys_open_mode_str(mode)"},
		 "__syscall_open_argstr(filename, flags, mode)"},
		{"openat", 4, {"dfd", "filename_uaddr", "flags", "mode"},
		 {"dfd_str = _dfd_str(dfd)", USTR("filename"), "flags_str = _sys_open_flag_str(flags)",
		  "mode_str = _sys_open_mode_str(mode)"},
		 "dfd_str . \", \" . __syscall_open_argstr(filename, flags, mode)"},
		{"creat", 2, {"pathname_uaddr", "mode"}, {USTR("pathname"), "mode_str = _sys_open_mode_str(mode)"},
		 "sprintf(\"%s, %#o\", pathname, mode)"},
		{"close", 1, {"fd"}},
		{"ioctl", 3, {"fd", "request", "argp"}},
		{"execve", 3, {"filename_uaddr", "args_uaddr", "env_uaddr"},
		 {USTR("filename"), "args = __syscall_argv(args_uaddr)",
		  "env_str = __syscall_envc_str(env_uaddr)"},
		 "sprintf(\"%s, %s, %s\", filename, args, env_str)"},
		{"newstat", 2, {"filename_uaddr", "buf_uaddr"}, {USTR("filename")},
		 "sprintf(\"%s, 0x%x\", filename, buf_uaddr)"},
		{"newlstat", 2, {"filename_uaddr", "buf_uaddr"}, {USTR("filename")},
		 "sprintf(\"%s, 0x%x\", filename, buf_uaddr)"},
		{"newfstat", 2, {"filedes", "buf_uaddr"}},
		{"newfstatat", 4, {"dirfd", "path_uaddr", "buf_uaddr", "flags"},
		 {"dirfd_str = _dfd_str(dirfd)", USTR("path"), "flags_str = _at_flag_str(flags)"},
		 "sprintf(\"%s, %s, 0x%x, %s\", dirfd_str, path, buf_uaddr, flags_str)"},
		{"statx", 5, {"dfd", "filename_uaddr", "flags", "mask", "buf_uaddr"},
		 {"dfd_str = _dfd_str(dfd)", USTR("filename"), "flags_str = _at_flag_str(flags)"},
		 "sprintf(\"%s, %s, %s, 0x%x, 0x%x\", dfd_str, filename, flags_str, mask, buf_uaddr)"},
		{"unlink", 1, {"pathname_uaddr"}, {USTR("pathname")}, "pathname"},
		{"unlinkat", 3, {"dfd", "pathname_uaddr", "flag"},
		 {"dfd_str = _dfd_str(dfd)", USTR("pathname"), "flag_str = _at_flag_str(flag)"},
		 "sprintf(\"%s, %s, %s\", dfd_str, pathname, flag_str)"},
		{"rmdir", 1, {"pathname_uaddr"}, {USTR("pathname")}, "pathname"},
		{"mkdir", 2, {"pathname_uaddr", "mode"}, {USTR("pathname")},
		 "sprintf(\"%s, %#o\", pathname, mode)"},
		{"mkdirat", 3, {"dirfd", "pathname_uaddr", "mode"},
		 {"dirfd_str = _dfd_str(dirfd)", USTR("pathname")},
		 "sprintf(\"%s, %s, %#o\", dirfd_str, pathname, mode)"},
		{"rename", 2, {"oldpath_uaddr", "newpath_uaddr"}, {USTR("oldpath"), USTR("newpath")},
		 "sprintf(\"%s, %s\", oldpath, newpath)"},
		{"renameat", 4, {"olddfd", "oldpath_uaddr", "newdfd", "newpath_uaddr"},
		 {"olddfd_str = _dfd_str(olddfd)", USTR("oldpath"), "newdfd_str = _dfd_str(newdfd)",
		  USTR("newpath")},
		 "sprintf(\"%s, %s, %s, %s\", olddfd_str, oldpath, newdfd_str, newpath)"},
		{"renameat2", 5, {"olddfd", "oldpath_uaddr", "newdfd", "newpath_uaddr", "flags"},
		 {"olddfd_str = _dfd_str(olddfd)", USTR("oldpath"), "newdfd_str = _dfd_str(newdfd)",
		  USTR("newpath"), "flags_str = _renameat2_flags_str(flags)"},
		 "sprintf(\"%s, %s, %s, %s, %s\", olddfd_str, oldpath, newdfd_str, newpath, flags_str)"},
		{"chdir", 1, {"path_uaddr"}, {USTR("path")}, "path"},
		{"access", 2, {"pathname_uaddr", "mode"}, {USTR("pathname")},
		 "sprintf(\"%s, %d\", pathname, mode)"},
		{"connect", 3, {"sockfd", "serv_addr_uaddr", "addrlen"}, {},
		 "sprintf(\"%d, %s, %u\", sockfd, _struct_sockaddr_u(serv_addr_uaddr, addrlen), addrlen)"},
		{"bind", 3, {"sockfd", "my_addr_uaddr", "addrlen"}, {},
		 "sprintf(\"%d, %s, %u\", sockfd, _struct_sockaddr_u(my_addr_uaddr, addrlen), addrlen)"},
		{"accept", 3, {"sockfd", "addr_uaddr", "addrlen_uaddr"}},
		{"accept4", 4, {"sockfd", "addr_uaddr", "addrlen_uaddr", "flags"},
		 {"flags_str = _sock_flags_str(flags)"},
		 "sprintf(\"%d, 0x%x, 0x%x, %s\", sockfd, addr_uaddr, addrlen_uaddr, flags_str)"},
		{"sendto", 6, {"s", "buf_uaddr", "len", "flags", "to_uaddr", "tolen"},
		 {"flags_str = _msg_flags_str(flags)"},
		 "sprintf(\"%d, 0x%x, %u, %s, %s, %u\", s, buf_uaddr, len, flags_str, "
		 "_struct_sockaddr_u(to_uaddr, tolen), tolen)"},
		{"recvfrom", 6, {"s", "buf_uaddr", "len", "flags", "addr_uaddr", "addrlen_uaddr"},
		 {"flags_str = _msg_flags_str(flags)"},
		 "sprintf(\"%d, 0x%x, %u, %s, 0x%x, 0x%x\", s, buf_uaddr, len, flags_str, addr_uaddr, "
		 "addrlen_uaddr)"},
		{"kill", 2, {"pid", "sig"}},
		{"tgkill", 3, {"tgid", "pid", "sig"}},
		{"exit", 1, {"status"}},
		{"exit_group", 1, {"status"}},
		{"nanosleep", 2, {"req_uaddr", "rem_uaddr"}},
		{"mmap", 6, {"start", "len", "prot", "flags", "fd", "offset"}},
		{"munmap", 2, {"start", "length"}},
		{"brk", 1, {"brk"}},
	};
	return r;
}

#undef USTR

// The entry of renames() for s; nullptr: none.
const Rename *rename_of(const Syscall &s)
{
	for (const Rename &r : renames())
		if (s.name == r.call && s.args.size() == r.nargs)
			return &r;
	return nullptr;
}

// Calls the generic header does not declare (arch code defines them).
const std::vector<Syscall> &extras()
{
	static const std::vector<Syscall> e = {
		{"mmap", {{"unsigned long", "addr"}, {"unsigned long", "len"},
			  {"unsigned long", "prot"}, {"unsigned long", "flags"},
			  {"unsigned long", "fd"}, {"unsigned long", "off"}}},
		{"arch_prctl", {{"int", "option"}, {"unsigned long", "arg2"}}},
		{"rt_sigreturn", {}},
	};
	return e;
}

// SystemTap's argument names for s.
std::vector<std::string> arg_names(const Syscall &s)
{
	std::vector<std::string> names;
	for (const Arg &a : s.args) {
		bool str = a.type.find("char") != std::string::npos &&
			   a.type.find("const") != std::string::npos &&
			   std::count(a.type.begin(), a.type.end(), '*') == 1;
		names.push_back(str ? a.name + "_uaddr" : a.name);
	}
	if (s.name == "clone" && s.args.size() == 5) {
		// CONFIG_CLONE_BACKWARDS puts tls fourth
		bool backwards = s.args[3].type.find('*') == std::string::npos;
		names = backwards ? std::vector<std::string>{"clone_flags", "stack_start",
							     "parent_tid_uaddr", "tls",
							     "child_tid_uaddr"}
				  : std::vector<std::string>{"clone_flags", "stack_start",
							     "parent_tid_uaddr", "child_tid_uaddr",
							     "tls"};
	}
	if (const Rename *r = rename_of(s))
		names.assign(r->names.begin(), r->names.end());
	// the alias's own variables and the language's keywords
	static const std::set<std::string> taken = {
		"name", "argstr", "retstr", "retval", "if", "else", "while", "for", "foreach",
		"in", "return", "break", "continue", "next", "delete", "global", "private",
		"function", "probe", "try", "catch", "string", "long", "limit"};
	for (size_t i = 0; i < names.size(); i++)
		if (taken.count(names[i]))
			names[i] += kind_of(s.args[i].type) == Kind::Ptr ? "_uaddr" : "_arg";
	return names;
}

// The probe alias's name: SystemTap's for the "new" variants.
std::string alias_name(const std::string &call, const std::set<std::string> &present)
{
	static const std::map<std::string, std::string> m = {
		{"newfstat", "fstat"}, {"newstat", "stat"}, {"newlstat", "lstat"},
		{"newfstatat", "fstatat"}, {"newuname", "uname"}};
	auto it = m.find(call);
	return it != m.end() && !present.count(it->second) ? it->second : call;
}

// Where an alias reads a wrapper's arguments (`at`): "" at its entry, from
// the pt_regs in its first register; "$regs" in its .return, where the
// wrapper's parameter (its BTF name) read at entry gives them: on x86-64
// each register's value as it was at entry (@entry($regs->di)); on arm64,
// whose pt_regs keeps them in an array, through the pt_regs pointer saved
// at entry (the registers the user passed, which a system call leaves as
// they are).

// The expression reading argument i of a wrapper.
std::string read_arg(size_t i, Kind k, Arch arch, const std::string &at)
{
	static const int x86[] = {112, 104, 96, 56, 72, 64}; // di si dx r10 r8 r9
	static const char *x86_regs[] = {"di", "si", "dx", "r10", "r8", "r9"};
	int off = arch == Arch::Arm64 ? (int)i * 8 : x86[i];
	std::string v = !at.empty() && arch != Arch::Arm64
				? "@entry(" + at + "->" + x86_regs[i] + ")"
				: "kernel_long(__regs + " + std::to_string(off) + ")";
	switch (k) {
	case Kind::S32:
		return "__syscall_s32(" + v + ")";
	case Kind::U32:
		return v + " & 0xffffffff";
	case Kind::U16:
		return v + " & 0xffff";
	default:
		return v;
	}
}

// The statements of an alias that set the arguments, what is derived from
// them and argstr; at as for read_arg.
void arg_statements(std::ostream &o, const Syscall &s, Arch arch,
		    const std::string &at)
{
	std::vector<std::string> names = arg_names(s), fmt;
	if (!s.args.empty() && at.empty())
		o << "\t__regs = register(\"" << (arch == Arch::Arm64 ? "x0" : "rdi") << "\")\n";
	else if (!s.args.empty() && arch == Arch::Arm64)
		o << "\t__regs = @entry(" << at << ")\n";
	for (size_t i = 0; i < s.args.size() && i < 6; i++) {
		Kind k = kind_of(s.args[i].type);
		o << "\t" << names[i] << " = " << read_arg(i, k, arch, at) << "\n";
		fmt.push_back(k == Kind::Ptr ? "0x%x" : k == Kind::ULong ? "%u" : "%d");
	}
	const Rename *r = rename_of(s);
	if (r)
		for (const char *d : r->derived)
			o << "\t" << d << "\n";
	if (r && r->argstr) {
		o << "\targstr = " << r->argstr << "\n";
	} else if (fmt.empty()) {
		o << "\targstr = \"\"\n";
	} else {
		o << "\targstr = sprintf(\"" << text::join(fmt) << "\"";
		for (size_t i = 0; i < fmt.size(); i++)
			o << ", " << names[i];
		o << ")\n";
	}
}

void entry_alias(std::ostream &o, const std::string &alias, const Syscall &s,
		 const std::string &point, Arch arch)
{
	o << "probe syscall." << alias << " = " << point << " {\n";
	o << "\tname = \"" << alias << "\"\n";
	arg_statements(o, s, arch, "");
	o << "}\n";
}

// syscall.NAME.return: retval, retstr and, when the wrapper's BTF can be
// read (entry_args), the arguments as at entry.
void return_alias(std::ostream &o, const std::string &alias, const Syscall &s,
		  const std::string &wrapper, const std::string &opt, Arch arch,
		  const std::string &regs)
{
	const bool entry_args = !regs.empty();
	// calls returning an address print it in hex, as SystemTap does
	const std::string &c = s.name;
	bool addr = c == "mmap" || c == "mmap_pgoff" || c == "brk" || c == "mremap" || c == "shmat";
	o << "probe syscall." << alias << ".return = "
	  << (entry_args ? "kernel.function(\"" : "kprobe.function(\"") << wrapper << "\").return"
	  << opt << " {\n\tname = \"" << alias << "\"\n";
	if (entry_args)
		arg_statements(o, s, arch, "$" + regs);
	o << "\tretval = " << (entry_args ? "$return" : "returnval()") << "\n\tretstr = "
	  << (addr ? "__syscall_retstr_addr" : "__syscall_retstr") << "(retval)\n}\n";
}

} // namespace

std::string generate_tapset(const std::vector<Syscall> &protos,
			    const std::optional<std::set<std::string>> &present,
			    Arch arch,
			    const std::map<std::string, std::string> &btf_wrappers)
{
	std::map<std::string, const Syscall *> by_name;
	for (const Syscall &s : extras())
		by_name[s.name] = &s;
	for (const Syscall &s : protos)
		by_name[s.name] = &s;
	std::set<std::string> calls;
	if (present)
		calls = *present;
	else
		for (const auto &[n, s] : by_name)
			calls.insert(n);
	calls.erase("ni_syscall");
	std::ostringstream o;
	o << "// syscall.NAME, syscall.NAME.return and nd_syscall.* of every system call\n"
	  << "// of this kernel, generated by stap-pmu from its include/linux/syscalls.h\n"
	  << "// and its symbol table (docs/tapsets.md, \"Probe aliases\").\n";
	if (present) {
		// SystemTap's '?': a call this kernel lacks has no alias
		std::string line;
		bool first = true;
		for (const Syscall &s : protos) {
			if (calls.count(s.name) || s.name == "ni_syscall")
				continue;
			if (std::exchange(first, false))
				o << "// In syscalls.h but without a probeable wrapper here (no alias):\n";
			if (line.size() + s.name.size() > 80) {
				o << "//" << line << "\n";
				line.clear();
			}
			line += " " + s.name;
		}
		if (!line.empty())
			o << "//" << line << "\n";
	}
	if (!btf_wrappers.empty()) {
		std::string line;
		for (const std::string &call : calls)
			if (!btf_wrappers.count(call))
				line += " " + call;
		if (!line.empty())
			o << "// Wrappers the kernel's BTF lacks (.return without the entry's arguments):\n//"
			  << line << "\n";
	}
	const std::string prefix = wrapper_prefix(arch), opt = present ? "" : " ?";
	for (const std::string &call : calls) {
		std::string alias = alias_name(call, calls);
		Syscall none{call, {}};
		auto it = by_name.find(call);
		const Syscall &s = it != by_name.end() ? *it->second : none;
		std::string point = "kprobe.function(\"" + prefix + call + "\")";
		o << "\n";
		entry_alias(o, alias, s, point + opt, arch);
		auto regs = btf_wrappers.find(call);
		return_alias(o, alias, s, prefix + call, opt, arch,
			     regs == btf_wrappers.end() ? "" : regs->second);
		o << "probe nd_syscall." << alias << " = syscall." << alias << " { }\n";
		o << "probe nd_syscall." << alias << ".return = syscall." << alias
		  << ".return { }\n";
	}
	return o.str();
}

namespace {

// Bump when generate_tapset's output changes: the cache keeps old files.
constexpr const char *generator_version = "4";

// The wrappers (names without the prefix) kprobes can probe; nullopt when
// the kernel's symbol table cannot be read.
std::optional<std::set<std::string>> wrappers(const std::string &release, Arch arch)
{
	Result<std::string> path = symbol_source(release, arch);
	if (!path)
		return std::nullopt;
	Result<ksyms::SymbolTable> t = path->find("kallsyms") != std::string::npos
					       ? ksyms::read_kallsyms(*path)
					       : ksyms::read_image_cached(*path, kernel::cache_dir());
	if (!t)
		return std::nullopt;
	std::set<std::string> out;
	const std::string prefix = wrapper_prefix(arch);
	for (const ksyms::Symbol &s : t->symbols())
		// a weak wrapper is the COND_SYSCALL stub of a call the kernel
		// was built without (it returns -ENOSYS)
		// (a name with a '.' is a part of one the compiler split off: .cold)
		if (s.name.rfind(prefix, 0) == 0 && t->is_text(s) && s.type != 'W' &&
		    s.type != 'w' && s.name.find('.') == std::string_view::npos &&
		    t->why_not_probeable(s.name).empty())
			out.emplace(s.name.substr(prefix.size()));
	return out;
}

// text written to file in dir (created), through a temporary file
Status write_file(const std::string &dir, const std::string &file, const std::string &text)
{
	std::error_code ec;
	std::filesystem::create_directories(dir, ec);
	std::string tmp = file + "." + std::to_string(getpid());
	{
		std::ofstream f(tmp);
		f << text;
		if (!f)
			return fail("cannot write " + tmp);
	}
	std::filesystem::rename(tmp, file, ec);
	if (ec)
		return fail("cannot write " + file + ": " + ec.message());
	return {};
}

} // namespace

Result<GeneratedTapset> tapset_dir(const std::string &tree, const std::string &release,
				   Arch arch,
				   const KernelConfig &config)
{
	GeneratedTapset g;
	g.dir = kernel::cache_dir() + "/tapsets/" + generator_version + "/" + release + "-" + arch_name(arch);
	std::string file = g.dir + "/syscall_aliases.stp";
	if (is_file(file))
		return g;
	// the .return aliases read the entry's arguments through the wrappers'
	// BTF; without it they are a kernel's "-nobtf" aliases
	Result<std::string> btf_path = btf::kernel_btf_source(release, arch);
	Result<std::unique_ptr<btf::Btf>> types =
		btf_path ? btf::Btf::open(*btf_path) : Result<std::unique_ptr<btf::Btf>>(btf_path.error());
	g.entry_args = types.ok();
	if (!g.entry_args) {
		g.dir += "-nobtf";
		file = g.dir + "/syscall_aliases.stp";
		if (is_file(file))
			return g;
	}
	Result<std::string> header = find_header(tree);
	if (!header)
		return header.error();
	std::optional<std::string> text = sys::read_file(*header);
	if (!text)
		return fail("cannot read " + *header);
	std::optional<std::set<std::string>> present = wrappers(release, arch);
	g.checked = present.has_value();
	g.generated = true;
	std::vector<Syscall> protos = parse_prototypes(*text, config);
	if (present) {
		g.aliases = present->size() - present->count("ni_syscall");
		for (const Syscall &s : protos)
			g.lacking += !present->count(s.name) && s.name != "ni_syscall";
	}
	if (!g.checked) {
		// every point optional; not kept for a run that can read the symbols
		g.dir += "-unchecked";
		file = g.dir + "/syscall_aliases.stp";
	}
	std::map<std::string, std::string> btf_wrappers;
	if (g.entry_args) {
		const std::string prefix = wrapper_prefix(arch);
		for (const std::string &w : present ? *present : std::set<std::string>{}) {
			// the wrapper's one parameter: "regs", but the BTF of a kernel
			// may give a wrapper the prototype of SYSCALL_DEFINE0's, whose
			// parameter is "__unused" (both are the pt_regs)
			uint32_t id = (*types)->find(prefix + w, btf::Kind::Func);
			std::vector<btf::Param> ps;
			if (id)
				ps = (*types)->params((*types)->type(id).ref);
			if (ps.size() == 1 && !ps[0].name.empty())
				btf_wrappers[w] = std::string(ps[0].name);
			else
				g.without_btf++;
		}
	}
	// syscall_any (before the file whose presence says the directory is
	// complete); without the numbers, no such alias
	Result<std::string> nh = find_numbers_header(tree, arch);
	std::optional<std::string> numbers = nh ? sys::read_file(*nh) : std::nullopt;
	g.any = numbers.has_value();
	if (g.any) {
		Status w = write_file(g.dir, g.dir + "/syscall_any.stp",
				      generate_any_tapset(parse_numbers(*numbers), arch));
		if (!w)
			return w.error();
	}
	Status w = write_file(g.dir, file, generate_tapset(protos, present, arch, btf_wrappers));
	if (!w)
		return w.error();
	return g;
}

} // namespace stap_pmu::syscalls
