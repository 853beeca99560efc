// tapsets.cpp - finding and pulling in tapset files.
#include "translator/frontend/tapsets.h"

#include <algorithm>
#include <filesystem>
#include <fnmatch.h>
#include <set>

#include "translator/frontend/parser.h"

namespace fs = std::filesystem;

namespace stap_pmu {

namespace {

struct Uses {
	std::set<std::string> calls, vars, assigned, points;
};

void collect(const Expr &e, Uses &u)
{
	if (e.kind == ExprKind::Call)
		u.calls.insert(e.text);
	if (e.kind == ExprKind::Var || e.kind == ExprKind::Index || e.kind == ExprKind::In)
		u.vars.insert(e.text);
	if ((e.kind == ExprKind::Assign || e.kind == ExprKind::IncDec) &&
	    e.args[0]->kind == ExprKind::Var)
		u.assigned.insert(e.args[0]->text);
	for_each_child(e, [&](const Expr &a) { collect(a, u); });
}

void collect(const Stmt &s, Uses &u)
{
	if (s.kind == StmtKind::Foreach) {
		if (!s.name.empty()) // empty: over a histogram
			u.vars.insert(s.name);
		for (const std::string &n : s.names)
			u.assigned.insert(n);
		if (!s.value.empty())
			u.assigned.insert(s.value);
	}
	for_each_child(s, [&](const auto &c) { collect(c, u); });
}

// What a function or probe body uses counts for the script, but for the
// variables it assigns (its locals).
void add_body(Uses &u, const Uses &body)
{
	u.calls.insert(body.calls.begin(), body.calls.end());
	for (const std::string &v : body.vars)
		if (!body.assigned.count(v))
			u.vars.insert(v);
}

// Symbols a script uses but does not define.
std::set<std::string> needs(const Script &s, const std::set<std::string> &builtins)
{
	Uses u;
	std::set<std::string> defined;
	for (const Global &g : s.globals)
		defined.insert(g.name);
	for (const Function &f : s.functions) {
		defined.insert(f.name);
		Uses fu;
		if (f.body)
			collect(*f.body, fu);
		for (const Param &p : f.params)
			fu.assigned.insert(p.name);
		add_body(u, fu);
	}
	for (const Probe &p : s.probes) {
		if (p.is_alias)
			for (const ProbePoint &n : p.alias_names)
				defined.insert(probe_point_str(n));
		for (const ProbePoint &pp : p.points) {
			u.points.insert(probe_point_str(pp));
			if (pp.cond)
				collect(*pp.cond, u);
		}
		Uses pu;
		collect(*p.body, pu);
		add_body(u, pu);
	}
	std::set<std::string> out;
	for (const std::string &c : u.calls)
		if (!defined.count(c) && !builtins.count(c))
			out.insert(c);
	for (const std::string &v : u.vars)
		if (!defined.count(v))
			out.insert(v);
	for (const std::string &p : u.points)
		if (!defined.count(p))
			out.insert(p);
	return out;
}

} // namespace

std::vector<std::string> probe_point_components(const std::string &point)
{
	std::vector<std::string> out(1);
	int depth = 0;
	bool quoted = false;
	for (size_t i = 0; i < point.size(); i++) {
		char c = point[i];
		if (quoted && c == '\\' && i + 1 < point.size()) {
			out.back() += c;
			c = point[++i];
		} else if (c == '"') {
			quoted = !quoted;
		} else if (!quoted && c == '(') {
			depth++;
		} else if (!quoted && c == ')') {
			depth--;
		} else if (!quoted && depth == 0 && c == '.') {
			out.emplace_back();
			continue;
		}
		out.back() += c;
	}
	return out;
}

bool component_has_wildcard(const std::string &component)
{
	return component.substr(0, component.find('(')).find_first_of("*?[") != std::string::npos;
}

bool has_wildcard(const std::string &point)
{
	for (const std::string &c : probe_point_components(point))
		if (component_has_wildcard(c))
			return true;
	return false;
}

bool probe_component_matches(const std::string &pattern, const std::string &component)
{
	size_t pa = pattern.find('('), na = component.find('(');
	std::string pn = pattern.substr(0, pa), nn = component.substr(0, na);
	std::string parg = pa == std::string::npos ? "" : pattern.substr(pa);
	std::string narg = na == std::string::npos ? "" : component.substr(na);
	return parg == narg && fnmatch(pn.c_str(), nn.c_str(), 0) == 0;
}

bool probe_name_matches(const std::string &pattern, const std::string &name)
{
	std::vector<std::string> p = probe_point_components(pattern),
				 n = probe_point_components(name);
	if (p.size() != n.size())
		return false;
	for (size_t i = 0; i < p.size(); i++)
		if (!probe_component_matches(p[i], n[i]))
			return false;
	return true;
}

bool probe_name_prefixes(const std::string &pattern, const std::string &name)
{
	std::vector<std::string> p = probe_point_components(pattern),
				 n = probe_point_components(name);
	if (p.size() <= n.size())
		return false;
	for (size_t i = 0; i < n.size(); i++)
		if (!probe_component_matches(p[i], n[i]))
			return false;
	return true;
}

bool point_names_alias(const std::string &point, const std::string &alias)
{
	return probe_name_matches(point, alias) || probe_name_prefixes(point, alias);
}

namespace {

std::vector<fs::path> stp_files(const std::string &dir)
{
	std::vector<fs::path> files;
	std::error_code ec;
	if (!fs::is_directory(dir, ec))
		return files;
	for (auto it = fs::recursive_directory_iterator(dir, ec);
	     !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
		if (it->path().extension() == ".stp")
			files.push_back(it->path());
	std::sort(files.begin(), files.end());
	return files;
}

void parse_tapset(TapsetFile &t, const PreprocInput &pp)
{
	Diagnostics scratch;
	t.script = parse(*t.source, scratch, pp);
	for (const Function &f : t.script.functions)
		t.defines.push_back(f.name);
	for (const Global &g : t.script.globals)
		t.defines.push_back(g.name);
	for (const Probe &pr : t.script.probes)
		if (pr.is_alias)
			for (const ProbePoint &n : pr.alias_names)
				t.defines.push_back(probe_point_str(n));
	if (scratch.has_errors())
		t.defines.clear(); // a broken tapset provides nothing
}

bool matches_any(const std::string &pattern, const std::unordered_set<std::string> &idents)
{
	for (const std::string &id : idents)
		if (fnmatch(pattern.c_str(), id.c_str(), 0) == 0)
			return true;
	return false;
}

} // namespace

std::vector<TapsetFile> load_tapsets(const std::vector<std::string> &dirs, const PreprocInput &pp)
{
	TapsetLibrary lib = open_tapsets(dirs, pp);
	std::vector<TapsetFile> out;
	for (size_t i = 0; i < lib.files.size(); i++)
		out.push_back(std::move(lib.file(i)));
	return out;
}

TapsetLibrary open_tapsets(const std::vector<std::string> &dirs, const PreprocInput &pp)
{
	TapsetLibrary lib;
	lib.pp = &pp;
	auto paste = [&lib](const std::string &text) {
		add_identifiers(text, lib.pasted);
		lib.pasted_braces |= text.find_first_of("{}") != std::string::npos;
	};
	for (const auto &d : pp.defines)
		paste(d.second);
	for (const std::string &a : pp.args)
		paste(a);
	open_more_tapsets(lib, dirs);
	return lib;
}

void open_more_tapsets(TapsetLibrary &lib, const std::vector<std::string> &dirs)
{
	for (const std::string &dir : dirs)
		for (const fs::path &p : stp_files(dir)) {
			auto src = read_source_file(p.string());
			if (!src)
				continue;
			TapsetLibrary::Entry e;
			e.file.source = std::move(*src);
			e.names = scan_tapset_names(e.file.source->text());
			lib.files.push_back(std::move(e));
		}
}

bool TapsetLibrary::may_define(size_t i, const std::string &want) const
{
	const TapsetNames &n = files[i].names;
	if (files[i].parsed || n.any || pasted_braces)
		return true;
	// the first component's name, as probe_component_matches compares it
	std::string first = probe_point_components(want)[0];
	first = first.substr(0, first.find('('));
	if (first.find_first_of("*?[") == std::string::npos)
		return n.idents.count(first) || pasted.count(first);
	return matches_any(first, n.idents) || matches_any(first, pasted);
}

TapsetFile &TapsetLibrary::file(size_t i)
{
	Entry &e = files[i];
	if (!e.parsed) {
		parse_tapset(e.file, *pp);
		e.parsed = true;
	}
	return e.file;
}

size_t TapsetLibrary::parsed_count() const
{
	size_t n = 0;
	for (const Entry &e : files)
		n += e.parsed;
	return n;
}

static void aliases_of(const TapsetFile &t, std::vector<std::string> &out)
{
	for (const Probe &pr : t.script.probes)
		if (pr.is_alias)
			for (const ProbePoint &n : pr.alias_names)
				out.push_back(probe_point_str(n));
}

std::vector<std::string> tapset_aliases(const std::vector<TapsetFile> &tapsets)
{
	std::vector<std::string> out;
	for (const TapsetFile &t : tapsets)
		aliases_of(t, out);
	return out;
}

std::vector<std::unique_ptr<SourceFile>> resolve_tapsets(Script &script, TapsetLibrary &lib,
							 const std::set<std::string> &builtins,
							 Diagnostics &diags)
{
	(void)diags;
	std::vector<std::unique_ptr<SourceFile>> used;
	std::vector<bool> taken(lib.files.size());
	bool again = true;
	while (again) {
		again = false;
		std::set<std::string> want = needs(script, builtins);
		std::vector<std::string> points; // the wanted names that may be probe points
		for (const std::string &w : want)
			if (has_wildcard(w) || w.find('.') != std::string::npos)
				points.push_back(w);
		for (size_t i = 0; i < lib.files.size(); i++) {
			if (taken[i])
				continue;
			// a file that cannot define what the script wants stays
			// unparsed (the exact test below would find no hit)
			bool may = false;
			for (auto w = want.begin(); !may && w != want.end(); ++w)
				may = lib.may_define(i, *w);
			if (!may)
				continue;
			TapsetFile &tf = lib.file(i);
			bool hit = false;
			for (const std::string &d : tf.defines)
				hit |= want.count(d) != 0;
			// probe syscall.*: a wildcard over the aliases a tapset
			// defines; syscall.read.return.maxactive(5): an alias and
			// a suffix its expansions get (point_names_alias)
			// (alias names only: 'probe b*' must not pull in a tapset
			// for its function bio_rw_str)
			std::vector<std::string> alias_names;
			if (!tf.defines.empty())
				aliases_of(tf, alias_names);
			for (const std::string &w : points)
				for (const std::string &d : alias_names)
					hit = hit || point_names_alias(w, d);
			if (!hit)
				continue;
			taken[i] = again = true;
			Script &t = tf.script;
			for (Global &g : t.globals) {
				g.from_tapset = true;
				script.globals.push_back(std::move(g));
			}
			for (Function &f : t.functions) {
				f.from_tapset = true;
				script.functions.push_back(std::move(f));
			}
			for (Probe &p : t.probes) {
				p.from_tapset = true;
				script.probes.push_back(std::move(p));
			}
			for (size_t e = 0; e < t.embedded.size(); e++) {
				script.embedded.push_back(std::move(t.embedded[e]));
				script.embedded_locs.push_back(t.embedded_locs[e]);
			}
			used.push_back(std::move(tf.source));
		}
	}
	return used;
}

} // namespace stap_pmu
