// listing.cpp - -l / -L: probe points from the tapsets, the target kernel's
// symbols, DWARF functions and tracepoints.
#include "translator/driver/listing.h"

#include <fnmatch.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>

#include "translator/driver/target_kernel.h"
#include "translator/driver/target_programs.h"
#include "translator/frontend/parser.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/kernelinfo/target_facts.h"
#include "translator/frontend/tapsets.h"
#include "translator/probes/kernel_facts.h"

namespace stap_pmu {

// Prints -l/-L lines sorted, each once; the exit status: 1 when none.
static int print_listing(std::vector<std::string> &lines)
{
	std::sort(lines.begin(), lines.end());
	lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
	for (const std::string &l : lines)
		std::cout << l << "\n";
	return lines.empty() ? 1 : 0;
}

namespace {

// -l / -L 'kernel.trace("sys:pattern")': the subsystem's tracepoints (-L:
// with their arguments as $name:type). False when pat is another pattern.
Result<bool> list_tracepoints(const Cli &cli, const std::string &pat, int &rc)
{
	const std::string kt = "kernel.trace(\"";
	if (pat.rfind(kt, 0) != 0 || pat.size() < kt.size() + 2 || pat.compare(pat.size() - 2, 2, "\")") != 0)
		return false;
	auto spec = split_tracepoint_spec(pat.substr(kt.size(), pat.size() - kt.size() - 2));
	if (!spec)
		return fail(spec.error().what);
	const std::string &ev = spec->event;
	auto facts = target_kernel_facts(cli, parse_options(cli));
	std::vector<std::string> systems = {spec->sys};
	if (spec->sys.empty())
		systems = facts->tracepoint_subsystems(ev);
	rc = 1;
	for (const std::string &sys : systems) {
		TracepointLookup found = facts->tracepoints(sys);
		if (auto *e = std::get_if<TracepointError>(&found)) {
			if (!spec->sys.empty())
				return e->error;
			continue;
		}
		for (const TracepointEvent &e : std::get<const TracepointSubsystem *>(found)->events) {
			if (fnmatch(ev.c_str(), e.name.c_str(), 0) != 0)
				continue;
			std::cout << "kernel.trace(\"" << sys << ":" << e.name << "\")";
			if (!cli.list_probes_vars.empty() && e.func) {
				std::string vars = describe_vars(*e.func, false);
				if (!vars.empty())
					std::cout << " " << vars;
			}
			std::cout << "\n";
			rc = 0;
		}
	}
	return true;
}

// Whether probe point `alias` (a tapset alias's name) resolves to at least one
// probe on the target kernel: pass 2 of "probe ALIAS { }", its errors
// (such as "no probes left") kept to itself.
bool alias_resolves(const ParseOptions &po, const KernelFacts &facts, const std::string &alias)
{
	Diagnostics diags;
	Parsed p = parse_pass(std::make_unique<SourceFile>("<-l>", "probe " + alias + " { }"), po, diags);
	if (diags.has_errors())
		return true; // not decidable here: list it as before
	elaborate_pass(p, TranslateOptions{}, &facts, diags);
	return !diags.has_errors();
}

// What -L prints: vars, then each local ("$name:type") as SystemTap lists
// the variables in scope at the probed address.
std::string with_locals(std::string vars, const std::vector<KernelParam> &locals)
{
	for (const KernelParam &l : locals)
		vars += (vars.empty() ? "" : " ") + ("$" + l.name + ":" + l.type);
	return vars;
}

// -l / -L 'kernel.function("GLOB")[.return]' and
// 'module("M").function("GLOB")[.return]': the functions DWARF has, as
// "NAME@FILE:LINE", with -L their parameters (and $return for .return).
Result<bool> list_dwarf_functions(const Cli &cli, const std::string &pat, int &rc)
{
	std::string module, prefix, rest = pat;
	const std::string kf = "kernel.function(\"", mf = "module(\"";
	if (rest.rfind(kf, 0) == 0) {
		prefix = "kernel";
		rest = rest.substr(kf.size() - 2);
	} else if (rest.rfind(mf, 0) == 0) {
		size_t q = rest.find('"', mf.size());
		if (q == std::string::npos || rest.compare(q, 12, "\").function(") != 0)
			return false;
		module = rest.substr(mf.size(), q - mf.size());
		prefix = "module(\"" + module + "\")";
		rest = rest.substr(q + 11);
	} else {
		return false;
	}
	// rest: ("GLOB")[.call|.return]
	size_t end = rest.find("\")", 2);
	if (rest.rfind("(\"", 0) != 0 || end == std::string::npos)
		return fail("expected " + prefix + ".function(\"GLOB\") in '" + pat + "'");
	std::string glob = rest.substr(2, end - 2), suffix = rest.substr(end + 2);
	if (!suffix.empty() && suffix != ".return" && suffix != ".call")
		return fail("unexpected '" + suffix + "' in '" + pat + "' (.call or .return may follow)");
	auto facts = target_kernel_facts(cli, parse_options(cli));
	auto fns = facts->functions(module, glob);
	if (!fns)
		return fns.error();
	std::vector<std::string> lines;
	for (const KernelFunction &f : *fns) {
		// DWARF knows the file and line, BTF does not
		std::string where = f.file.empty() ? ""
						   : "@" + f.file + ":" + std::to_string(f.line);
		std::string l = prefix + ".function(\"" + f.name + where + "\")" + suffix;
		if (!cli.list_probes_vars.empty()) {
			std::string vars = describe_vars(f, suffix == ".return");
			if (suffix != ".return")
				if (auto locals = facts->locals(f))
					vars = with_locals(vars, *locals);
			if (!vars.empty())
				l += " " + vars;
		}
		lines.push_back(l);
	}
	rc = print_listing(lines);
	return true;
}

// What -L prints after a process probe point: a DWARF function's
// parameters and locals in scope (or $return), a marker's $arg1..$argN.
std::string process_vars(const ResolvedPoint &p, const ProcessFacts &facts)
{
	if (p.func && p.kind == ProbeKind::Uretprobe)
		return describe_vars(*p.func, true);
	if (p.func)
		return with_locals(describe_vars(*p.func, false),
				   p.ufunc ? facts.locals(*p.ufunc) : std::vector<KernelParam>{});
	std::string s;
	if (p.mark)
		for (size_t i = 0; i < p.mark->args.size(); i++)
			s += (i ? " $arg" : "$arg") + std::to_string(i + 1) + ":long";
	return s;
}

// -l / -L 'process("PATH").function("GLOB")' and every other process
// form: the points the provider resolves the pattern to (canonical names,
// wildcards expanded). False when pat is another pattern.
Result<bool> list_process(const Cli &cli, const std::string &pat, int &rc)
{
	if (pat.rfind("process(", 0) != 0)
		return false; // process.begin/.end are among the fixed names
	SourceFile file("<pattern>", "probe " + pat + " { }");
	Diagnostics diags;
	Script script = parse(file, diags);
	if (diags.has_errors() || script.probes.size() != 1 || script.probes[0].points.size() != 1)
		return fail("'" + pat + "' is not a probe point",
			    "e.g. -L 'process(\"/bin/ls\").function(\"*\")'");
	std::unique_ptr<ProcessFacts> facts = target_process_facts(cli);
	NoKernelFacts kernel;
	auto points = resolve_probe_points(script.probes[0].points[0],
					   ProbeContext{diags, kernel, facts.get()});
	if (!points) {
		const Diagnostic &d = diags.all().front();
		return fail(d.message, d.hint);
	}
	std::vector<std::string> lines;
	for (const ResolvedPoint &p : *points) {
		std::string vars = cli.list_probes_vars.empty() ? "" : process_vars(p, *facts);
		lines.push_back(p.name + (vars.empty() ? "" : " " + vars));
	}
	rc = print_listing(lines);
	return true;
}

// The text symbols of the target kernel matching glob that kprobes can
// probe (its kallsyms: /proc/kallsyms when it is running, else read from
// its image; kernelinfo/kallsyms.h).
Result<std::vector<std::string>> kprobe_symbols(const Cli &cli, const ParseOptions &po,
						const std::string &glob)
{
	Result<std::string> src = symbol_source(po.pp.kernel_vr, cli.arch);
	if (!src)
		return src.error();
	Result<ksyms::SymbolTable> t = src->find("kallsyms") != std::string::npos
					       ? ksyms::read_kallsyms(*src)
					       : ksyms::read_image_cached(
							 *src, cli.no_cache ? "" : cli.caches.root);
	if (!t)
		return t.error();
	std::set<std::string, std::less<>> seen;
	for (const ksyms::Symbol &s : t->symbols())
		if (t->is_text(s) && s.name.find('.') == std::string_view::npos &&
		    fnmatch(glob.c_str(), std::string(s.name).c_str(), 0) == 0 &&
		    !seen.count(s.name) && t->why_not_probeable(s.name).empty())
			seen.emplace(s.name);
	return std::vector<std::string>(seen.begin(), seen.end());
}

// A pattern with probe point braces ("syscall.{read,write}") as the
// patterns it stands for, in product order; braces in strings stay. An
// unbalanced pattern is left as it is (it then matches nothing).
std::vector<std::string> expand_braces(const std::string &pat)
{
	size_t open = std::string::npos, close = std::string::npos;
	int depth = 0;
	bool quoted = false;
	std::vector<size_t> commas;
	for (size_t i = 0; i < pat.size() && close == std::string::npos; i++) {
		char ch = pat[i];
		if (ch == '"')
			quoted = !quoted;
		if (quoted)
			continue;
		if (ch == '{' && depth++ == 0)
			open = i;
		else if (ch == '}' && depth > 0 && --depth == 0)
			close = i;
		else if (ch == ',' && depth == 1)
			commas.push_back(i);
	}
	if (close == std::string::npos)
		return {pat};
	std::vector<std::string> out;
	size_t from = open + 1;
	commas.push_back(close);
	for (size_t c : commas) {
		std::string one = pat.substr(0, open) + pat.substr(from, c - from) + pat.substr(close + 1);
		for (std::string &e : expand_braces(one))
			out.push_back(std::move(e));
		from = c + 1;
	}
	return out;
}

// The points one pattern (without braces) matches.
Result<int> list_one(const Cli &cli, const std::string &pat)
{
	int rc = 1;
	Result<bool> listed = list_tracepoints(cli, pat, rc);
	if (listed && !*listed)
		listed = list_dwarf_functions(cli, pat, rc);
	if (listed && !*listed)
		listed = list_process(cli, pat, rc);
	if (!listed)
		return listed.error();
	if (*listed)
		return rc;
	ParseOptions po = parse_options(cli);
	std::vector<std::string> names = {"begin", "end", "error", "timer.s(N)", "timer.ms(N)",
					  "timer.us(N)", "timer.ns(N)", "timer.hz(N)",
					  "timer.ms(N).randomize(M)", "timer.profile",
					  "perf.event(\"E\").sample(N)", "perf.event(\"E\").hz(N)",
					  "perf.type(T).config(C).sample(N)",
					  "perf.type(T).config(C).hz(N)", "never",
					  "procfs.read", "procfs.read.maxsize(N)", "procfs.write",
					  "procfs(\"NAME\").read", "procfs(\"NAME\").read.maxsize(N)",
					  "procfs(\"NAME\").write", "procfs.umask(U).read",
					  "procfs.umask(U).write", "procfs(\"NAME\").umask(U).read",
					  "procfs(\"NAME\").umask(U).write", "process.begin",
					  "process.end", "netfilter.hook(\"H\").pf(\"P\")",
					  "netfilter.hook(\"H\").pf(\"P\").priority(N)"};
	// aliases match component by component, as probe points do:
	// 'syscall.*' lists syscall.read, not syscall.read.return
	std::set<std::string> aliases;
	if (may_name_syscall_alias(pat) && po.syscall_tapsets)
		if (std::optional<std::string> d = po.syscall_tapsets(po.pp))
			po.tapset_dirs.push_back(*d);
	std::unique_ptr<KernelFacts> facts;
	for (const std::string &a : tapset_aliases(load_tapsets(po.tapset_dirs, po.pp))) {
		if (!probe_name_matches(pat, a) || aliases.count(a))
			continue;
		// the generated syscall aliases exist by construction; another
		// alias is listed only if it resolves on the target kernel (an
		// alias on optional points the kernel lacks does not)
		if (!may_name_syscall_alias(a)) {
			if (!facts)
				facts = target_kernel_facts(cli, po);
			if (!alias_resolves(po, *facts, a))
				continue;
		}
		aliases.insert(a);
	}
	const std::string kp = "kprobe.function(\"";
	if (pat.rfind("kprobe", 0) == 0) {
		std::string sym_glob = "*";
		if (pat.rfind(kp, 0) == 0) {
			size_t end = pat.find('"', kp.size());
			sym_glob = pat.substr(kp.size(), end == std::string::npos ? end : end - kp.size());
		}
		Result<std::vector<std::string>> syms = kprobe_symbols(cli, po, sym_glob);
		if (!syms)
			return syms.error();
		for (const std::string &sym : *syms) {
			names.push_back(kp + sym + "\")");
			names.push_back(kp + sym + "\").return");
		}
	}
	std::set<std::string> out = aliases;
	for (const std::string &name : names)
		if (fnmatch(pat.c_str(), name.c_str(), 0) == 0)
			out.insert(name);
	for (const std::string &name : out) {
		std::cout << name;
		// -L: what the body can use ($value of procfs probes)
		if (!cli.list_probes_vars.empty() && name.rfind("procfs", 0) == 0)
			std::cout << " $value:string";
		std::cout << "\n";
	}
	return out.empty() ? 1 : 0;
}

} // namespace

// -l / -L PATTERN: the probe points matching a glob, for the kinds that
// exist (kprobe symbols from the target kernel's kallsyms); a pattern with
// braces lists the points of each pattern it expands to.
Result<int> list_probes(const Cli &cli)
{
	std::string pattern = !cli.list_probes.empty() ? cli.list_probes : cli.list_probes_vars;
	int rc = 1;
	for (const std::string &pat : expand_braces(pattern)) {
		Result<int> one = list_one(cli, pat);
		if (!one)
			return one.error();
		if (*one == 0)
			rc = 0;
	}
	return rc;
}

} // namespace stap_pmu
