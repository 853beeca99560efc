// kernel_facts.cpp - the syntax every KernelFacts implementation shares
// (function patterns, @cast's arguments), the messages of missing kernel
// information, NoKernelFacts, and functions of the plain data.
#include "translator/probes/kernel_facts.h"
#include "translator/support/suggest.h"

#include <cctype>
#include <cstring>
#include <filesystem>

namespace stap_pmu {

namespace fs = std::filesystem;

Error kernel_info_missing(const std::string &release, const std::string &looked_at, bool for_cast)
{
	return fail(std::string(for_cast ? "@cast(..., \"kernel\")" : "kernel.function") +
			    " needs the kernel's DWARF: " + looked_at + " not found",
		    "give a debug vmlinux with --vmlinux FILE (package linux-image-" + release +
			    (for_cast ? "-dbg), or name a module whose DWARF defines the type: "
					"@cast(p, \"struct NAME\", \"MODULE\")"
				      : "-dbg), or probe by symbol with kprobe.function(\"name\"), "
					"which needs no DWARF"));
}

Error module_info_missing(const std::string &module, const std::string &looked_in, bool for_cast)
{
	return fail((for_cast ? "@cast(..., \"" + module + "\")" : "module(\"" + module + "\")") +
			    " needs " + module + ".ko with DWARF: not found in " + looked_in,
		    for_cast ? "give its directory with --module-dir DIR, or the file with "
			       "--vm-module FILE.ko"
			     : "give its directory with --module-dir DIR, or probe by symbol with "
			       "kprobe.module(\"" + module + "\").function(\"name\"), which needs no DWARF");
}

Result<FunctionPattern> parse_function_pattern(const std::string &pattern)
{
	FunctionPattern fp;
	fp.glob = pattern;
	size_t at = pattern.find('@');
	if (at == std::string::npos)
		return fp;
	fp.glob = pattern.substr(0, at);
	fp.file_glob = pattern.substr(at + 1);
	size_t colon = fp.file_glob.rfind(':');
	if (colon != std::string::npos) {
		std::string ln = fp.file_glob.substr(colon + 1);
		size_t dash = ln.find('-');
		auto number = [](const std::string &n) {
			return !n.empty() && n.size() < 9 &&
			       n.find_first_not_of("0123456789") == std::string::npos;
		};
		if (ln == "*") {
			fp.any_line = true;
		} else if (dash != std::string::npos && number(ln.substr(0, dash)) &&
			   number(ln.substr(dash + 1)) &&
			   std::stoi(ln.substr(0, dash)) <= std::stoi(ln.substr(dash + 1))) {
			fp.line = std::stoi(ln.substr(0, dash));
			fp.line_end = std::stoi(ln.substr(dash + 1));
		} else if (number(ln)) {
			fp.line = std::stoi(ln);
		} else {
			return fail("bad line number '" + ln + "' in '" + pattern + "'",
				    "a line is a number N, a range N-M or '*' (every line)");
		}
		fp.file_glob = fp.file_glob.substr(0, colon);
	}
	return fp;
}

Error many_lines_unsupported(const std::string &pattern)
{
	return fail("'" + pattern + "': probing every line (':*') or a range of lines (':N-M') "
		    "is not supported yet",
		    "name one line, f@FILE:LINE (-L 'kernel.function(\"f@FILE\")' shows the "
		    "function's file and first line)");
}

static std::string trim_blanks(const std::string &x)
{
	size_t b = x.find_first_not_of(" \t"), l = x.find_last_not_of(" \t");
	return b == std::string::npos ? std::string() : x.substr(b, l - b + 1);
}

std::variant<CastType, CastError> parse_cast_type(const std::string &type)
{
	CastType t;
	t.name = trim_blanks(type);
	for (const char *k : {"struct", "union"})
		if (t.name.rfind(k, 0) == 0 && t.name.size() > strlen(k) &&
		    (t.name[strlen(k)] == ' ' || t.name[strlen(k)] == '\t')) {
			t.keyword = k;
			t.name = trim_blanks(t.name.substr(strlen(k)));
		}
	bool ident = !t.name.empty() && !isdigit(static_cast<unsigned char>(t.name[0]));
	for (char ch : t.name)
		ident = ident && (isalnum(static_cast<unsigned char>(ch)) || ch == '_');
	if (ident)
		return t;
	CastError e;
	e.part = CastError::Type;
	e.msg = "cannot use '" + type + "' as @cast's type";
	e.hint = "name a struct, union or typedef: \"struct NAME\", \"union NAME\" or \"NAME\"";
	return e;
}

std::vector<std::string> cast_modules(const std::string &module)
{
	std::vector<std::string> mods;
	for (size_t p = 0;;) {
		size_t q = module.find(':', p);
		mods.push_back(trim_blanks(module.substr(p, q == std::string::npos ? q : q - p)));
		if (q == std::string::npos)
			break;
		p = q + 1;
	}
	return mods;
}

std::optional<CastError> bad_cast_module(const std::string &m, const std::string &all)
{
	if (!m.empty() && m.find('<') == std::string::npos)
		return std::nullopt;
	CastError e;
	e.part = CastError::Module;
	e.msg = m.empty() ? "empty module name in @cast's module '" + all + "'"
			  : "@cast with a header ('" + m + "') is not supported";
	e.hint = "name the module whose DWARF defines the type (\"kernel\" for vmlinux)";
	return e;
}

Result<TargetAccess> parameter_access(const KernelFunction &f, const std::string &name)
{
	std::string where = f.tracepoint ? " in tracepoint " + f.name : " in " + f.name + "()";
	TargetAccess acc;
	bool found = false;
	for (const KernelParam &p : f.params)
		if (p.name == name) {
			if (p.arg < 0)
				return fail("parameter '$" + p.name + "' of type " + p.type + where +
					    (f.tracepoint ? " is not an integer or pointer"
							  : " is not an integer or pointer in an argument register"));
			acc.arg = p.arg;
			if (f.tracepoint)
				acc.base = TargetAccess::TpArg;
			found = true;
		}
	if (found)
		return acc;
	std::string names;
	for (const KernelParam &p : f.params)
		names += (names.empty() ? "" : " ") + ("$" + p.name);
	return fail("'$" + name + "' is not " +
		    (f.tracepoint ? "an argument of tracepoint " + f.name
				  : "a parameter of " + f.name + "()") +
		    (names.empty() ? " (it has none)"
				   : (f.tracepoint ? " (arguments: " : " (parameters: ") + names + ")"));
}

std::vector<std::string> split_target_spelling(const std::string &spelling)
{
	std::vector<std::string> parts;
	size_t p = spelling.empty() || spelling[0] != '$' ? 0 : 1;
	size_t q = spelling.find_first_of("-[", p);
	parts.push_back(spelling.substr(p, q == std::string::npos ? q : q - p));
	for (p = q; p != std::string::npos && p < spelling.size(); p = q) {
		if (spelling[p] == '[') {
			q = spelling.find(']', p);
			q = q == std::string::npos ? spelling.size() : q + 1;
			parts.push_back(spelling.substr(p, q - p));
			continue;
		}
		p += 2; // "->"
		q = spelling.find_first_of("-[", p);
		parts.push_back(spelling.substr(p, q == std::string::npos ? q : q - p));
	}
	return parts;
}

std::string steps_text(const std::vector<std::string> &steps, size_t upto)
{
	std::string s;
	for (size_t i = 0; i < upto && i < steps.size(); i++)
		s += steps[i] == "[]" ? "[...]" : is_index_step(steps[i]) ? steps[i] : "->" + steps[i];
	return s;
}

std::string describe_vars(const KernelFunction &f, bool in_return)
{
	std::string s;
	for (const KernelParam &p : f.params)
		s += (s.empty() ? "" : " ") + ("$" + p.name + ":" + p.type);
	if (in_return && f.ret_type != "void")
		s += (s.empty() ? "" : " ") + ("$return:" + f.ret_type);
	return s;
}

std::string probe_params(const TracepointEvent &ev)
{
	if (!ev.unsupported.empty() || !ev.func)
		return "";
	std::string s = "void *__data";
	for (size_t i = 0; i < ev.func->params.size(); i++)
		s += ", " + ev.func->params[i].abi + (ev.func->params[i].abi.back() == '*' ? "" : " ") +
		     "a" + std::to_string(i);
	return s;
}

// ---- NoKernelFacts ----

Result<std::vector<KernelFunction>> NoKernelFacts::functions(const std::string &module,
							     const std::string &pattern) const
{
	if (auto fp = parse_function_pattern(pattern); !fp)
		return fp.error();
	if (module.empty())
		return kernel_info_missing(release_, "/usr/lib/debug/boot/vmlinux-" + release_, false);
	return module_info_missing(module, "/lib/modules/" + release_, false);
}

Result<TargetAccess> NoKernelFacts::target_access(const KernelFunction &f, const std::string &,
						  bool) const
{
	return fail("lost the DWARF of " + f.name);
}

CastAccess NoKernelFacts::cast_access(const std::string &module, const std::string &type,
				      const std::vector<std::string> &) const
{
	auto t = parse_cast_type(type);
	if (auto *e = std::get_if<CastError>(&t))
		return *e;
	std::optional<CastError> missing; // the first module's
	for (const std::string &m : cast_modules(module)) {
		if (auto bad = bad_cast_module(m, module))
			return *bad;
		if (missing)
			continue;
		CastError me;
		me.part = CastError::Module;
		if (m.find('/') != std::string::npos) {
			me.msg = fs::is_regular_file(m) ? m + " has no DWARF debugging information"
							: "@cast's module file " + m + " does not exist";
		} else {
			Error e = m == "kernel" ? kernel_info_missing(release_, "/usr/lib/debug/boot/vmlinux-" +
										 release_, true)
						: module_info_missing(m, "/lib/modules/" + release_, true);
			me.msg = e.what;
			me.hint = e.hint;
		}
		missing = me;
	}
	return *missing;
}

TracepointLookup NoKernelFacts::tracepoints(const std::string &) const
{
	return TracepointError{
		fail("kernel.trace needs the target kernel's build tree: no target kernel configured"),
		false};
}

const KernelFacts &facts_or_none(const KernelFacts *f)
{
	static const NoKernelFacts none;
	return f ? *f : none;
}

// "did you mean" and the members of the struct, for a member not found.
static std::string members_hint(const WalkFail &fail, const std::string &mem)
{
	std::string near = closest_name(mem, fail.names);
	std::string list;
	for (size_t i = 0; i < fail.names.size() && i < 8; i++)
		list += (i ? ", " : "") + fail.names[i];
	if (fail.names.size() > 8)
		list += ", ... (" + std::to_string(fail.names.size()) + " in all)";
	return (near.empty() ? "" : "did you mean '" + near + "'? ") + fail.type +
	       (list.empty() ? " has no members" : " has " + list);
}

// The messages of a failed "[i]" step (nothing for the other failures):
// what: the value indexed, quoted; where: " in f()" or "" (@cast).
static std::optional<Error> index_walk_error(const WalkFail &fail, const std::string &what,
					     const std::vector<std::string> &steps,
					     const std::string &where)
{
	const std::string idx = fail.step < steps.size() && steps[fail.step] != "[]"
					? steps[fail.step] : "[...]";
	switch (fail.what) {
	case WalkFail::NotIndexable:
		return stap_pmu::fail(what + " is " + fail.type + where +
					      ", not an array or pointer: cannot use '" + idx + "'",
				      "only arrays and pointers can be indexed");
	case WalkFail::OutOfBounds:
		return stap_pmu::fail("index " + idx.substr(1, idx.size() - 2) + " is out of bounds of " +
					      what + where + ", " + fail.type + " of " +
					      std::to_string(fail.bound) + " element" +
					      (fail.bound == 1 ? "" : "s"),
				      "the last element is [" +
					      std::to_string(fail.bound ? fail.bound - 1 : 0) + "]");
	case WalkFail::NoElementSize:
		return stap_pmu::fail(what + " is " + fail.type + where +
					      ", whose elements have no known size: cannot use '" + idx + "'",
				      "cast it to a pointer to a complete type with @cast(p, \"TYPE\")[i]");
	default:
		return std::nullopt;
	}
}

// The message for a target variable whose member walk failed.
Error tvar_walk_error(const WalkFail &fail, const std::string &var,
		      const std::vector<std::string> &members, const std::string &where)
{
	// "$a->b" up to the failing step (NotScalar, Unreadable: all of it)
	size_t upto = fail.what == WalkFail::NotScalar || fail.what == WalkFail::Unreadable
			      ? members.size() : fail.step;
	std::string path = "$" + var + steps_text(members, upto);
	if (std::optional<Error> e = index_walk_error(fail, "'" + path + "'", members, where))
		return *e;
	switch (fail.what) {
	case WalkFail::NotPointer:
		return stap_pmu::fail("'" + path + "' is not a pointer to a struct or union" +
				      where + ", cannot use '->" + members[fail.step] + "'");
	case WalkFail::Incomplete:
	case WalkFail::NoMember:
	case WalkFail::BitField:
		return fail.what == WalkFail::NoMember
			       ? stap_pmu::fail("no member '" + members[fail.step] +
						"' (or a bit field) in the type of '" + path + "'" +
						where,
					members_hint(fail, members[fail.step]))
			       : stap_pmu::fail("no member '" + members[fail.step] +
						"' (or a bit field) in the type of '" + path + "'" +
						where);
	case WalkFail::Unreadable:
		return stap_pmu::fail("'" + path + "' has a type stap-pmu cannot read" + where);
	default:
		break;
	}
	return stap_pmu::fail("'" + path + "' is not an integer or pointer" + where);
}

// The message for a @cast whose member walk in `path` failed.
CastError cast_walk_error(const WalkFail &fail, const std::vector<std::string> &members,
			  const std::string &shown, const std::string &path)
{
	CastError e;
	e.part = CastError::Member;
	e.member = fail.step;
	std::string before = steps_text(members, fail.step); // "->a->b" up to the failing step
	const std::string &mem = members[fail.step];
	std::string indexed = before.empty() ? "'" + shown + "'" : "'" + before + "' of " + shown;
	if (std::optional<Error> ie = index_walk_error(fail, indexed, members, "")) {
		e.msg = ie->what;
		e.hint = ie->hint;
		return e;
	}
	switch (fail.what) {
	case WalkFail::NotPointer:
		e.msg = fail.step == 0
				? "'" + shown + "' is " + fail.type +
					  ", not a struct or union: cannot use '->" + mem + "'"
				: "'" + before + "' of " + shown + " is " + fail.type +
					  ", not a pointer to a struct or union: cannot use '->" + mem + "'";
		break;
	case WalkFail::Incomplete:
		e.msg = fail.type + " is only declared in " + path + ": cannot use '->" + mem + "'";
		e.hint = "name the module (or \"kernel\") that defines it";
		break;
	case WalkFail::NoMember:
		e.msg = "no member '" + mem + "' in " + fail.type;
		e.hint = members_hint(fail, mem);
		break;
	case WalkFail::BitField:
		e.msg = "'" + mem + "' of " + fail.type + " is a bit field, which stap-pmu cannot read";
		break;
	default:
		e.msg = "'" + steps_text(members, fail.step + 1) + "' of " + shown +
			" has a type stap-pmu cannot read (" + fail.type + ")";
		break;
	}
	return e;
}

CastError cast_type_missing_error(CastError e, const CastType &t, bool declared,
				  const std::string &in,
				  const std::map<std::string, std::string> &near_names)
{
	e.msg = (t.keyword.empty() ? "no struct, union or typedef '" + t.name + "'" : "no " + t.shown()) +
		(declared ? " definition" : "") + " in " + in;
	std::vector<std::string> names;
	for (const auto &[n, spelled] : near_names)
		names.push_back(n);
	std::string near = closest_name(t.name, names);
	e.hint = !near.empty() ? "did you mean '" + near_names.at(near) + "'?"
		 : declared   ? "it is only declared there; name the module (or \"kernel\") that defines it"
			      : "";
	return e;
}

} // namespace stap_pmu
