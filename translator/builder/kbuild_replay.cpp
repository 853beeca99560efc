// kbuild_replay.cpp - recording kbuild's commands (kbuild_replay.h).
#include "translator/builder/kbuild_replay.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "translator/support/file.h"
#include "translator/support/text.h"

namespace fs = std::filesystem;

namespace stap_pmu::kbuild_replay {

namespace {

bool starts_with(const std::string &s, const std::string &p) { return s.compare(0, p.size(), p) == 0; }

void replace_all(std::string &s, const std::string &from, const std::string &to)
{
	if (from.empty())
		return;
	for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
		s.replace(p, from.size(), to);
}

// kbuild's .cmd files hold a command as make text: $$ for $, $(pound) for #
std::string unescape_make(const std::string &s)
{
	std::string out;
	for (size_t i = 0; i < s.size(); i++) {
		if (s[i] == '$' && i + 1 < s.size() && s[i + 1] == '$') {
			out += '$';
			i++;
		} else if (s.compare(i, 8, "$(pound)") == 0) {
			out += '#';
			i += 7;
		} else {
			out += s[i];
		}
	}
	return out;
}

// The command kbuild recorded for DIR/TARGET in DIR/.TARGET.cmd (6.1 writes
// cmd_PATH := ..., 6.8 on savedcmd_PATH := ...).
Result<std::string> read_cmd(const std::string &dir, const std::string &target)
{
	std::string file = dir + "/." + target + ".cmd";
	auto text = sys::read_file(file);
	if (!text)
		return fail("kbuild wrote no " + file);
	std::string first = text->substr(0, text->find('\n'));
	std::string path = dir + "/" + target + " := ";
	for (const char *prefix : {"cmd_", "savedcmd_"})
		if (starts_with(first, prefix + path))
			return unescape_make(first.substr(std::string(prefix).size() + path.size()));
	return fail(file + " does not start with the command of " + target);
}

// the inverse, for fixdep's copy of a command
std::string escape_make(const std::string &s)
{
	std::string out;
	for (char c : s) {
		if (c == '$')
			out += "$$";
		else if (c == '#')
			out += "$(pound)";
		else
			out += c;
	}
	return out;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The module's name in the places kbuild puts it: DIR/NAME.x, DIR/.NAME.x,
// "NAME" and "NAME.mod" (KBUILD_BASENAME, KBUILD_MODNAME), kmod_NAME
// (__KBUILD_MODNAME) and " NAME.o" (the object list of NAME.mod). Fails
// when the name is left anywhere else as a word of its own ("ld", "gcc"):
// the recipe would put another module's name there.
Result<std::string> mark_name(const std::string &s, const std::string &name)
{
	const std::string dir_slash = std::string(kDirMark) + "/";
	std::string out;
	size_t i = 0;
	while (i < s.size()) {
		size_t p = s.find(name, i);
		if (p == std::string::npos)
			break;
		out.append(s, i, p - i);
		char next = p + name.size() < s.size() ? s[p + name.size()] : ' ';
		std::string before = s.substr(0, p);
		bool path = (before.size() >= dir_slash.size() &&
			     before.compare(before.size() - dir_slash.size(), dir_slash.size(), dir_slash) == 0) ||
			    (before.size() >= dir_slash.size() + 1 &&
			     before.compare(before.size() - dir_slash.size() - 1, dir_slash.size() + 1,
					    dir_slash + ".") == 0);
		bool ok = false;
		if (path)
			ok = next == '.';
		else if (p > 0 && s[p - 1] == '"')
			ok = next == '"' || s.compare(p + name.size(), 5, ".mod\"") == 0;
		else if (before.size() >= 5 && before.compare(before.size() - 5, 5, "kmod_") == 0 &&
			 (before.size() == 5 || !ident_char(before[before.size() - 6])))
			ok = !ident_char(next);
		else if (p > 0 && (s[p - 1] == ' ' || s[p - 1] == '\t'))
			ok = s.compare(p + name.size(), 3, ".o ") == 0 || s.compare(p + name.size(), 3, ".o|") == 0;
		if (ok) {
			out += kNameMark;
		} else {
			char prev = p > 0 ? s[p - 1] : ' ';
			if (!ident_char(prev) && !ident_char(next))
				return fail("the module name '" + name + "' is also a word of kbuild's commands");
			out += name;
		}
		i = p + name.size();
	}
	out.append(s, i, std::string::npos);
	return out;
}

// make V=1 shows the BTF step of a module (6.0 on, kbuild does not record
// it): "if [ ! -f vmlinux ]; then printf ...; else ... pahole ... fi;"
std::string btf_step(const std::string &log, const std::string &ko)
{
	size_t p = log.find("if [ ! -f vmlinux ]; then");
	if (p == std::string::npos)
		return "";
	size_t e = log.find("; fi;", p);
	if (e == std::string::npos)
		return "";
	std::string cmd = log.substr(p, e + 5 - p);
	return cmd.find(ko) == std::string::npos ? "" : cmd;
}

// -DMACRO=VALUE as make passed it to the shell, as a #define
std::string define_line(const std::string &word)
{
	std::string body = word.substr(2);
	size_t eq = body.find('=');
	if (eq == std::string::npos)
		return "#define " + body + "\n";
	std::string value;
	const std::string v = body.substr(eq + 1);
	for (size_t i = 0; i < v.size(); i++) {
		if (v[i] == '\'') {
			size_t e = v.find('\'', i + 1);
			value.append(v, i + 1, (e == std::string::npos ? v.size() : e) - i - 1);
			i = e == std::string::npos ? v.size() : e;
		} else {
			value += v[i];
		}
	}
	return "#define " + body.substr(0, eq) + " " + value + "\n";
}

std::string join(const std::vector<std::string> &words)
{
	std::string s;
	for (const std::string &w : words)
		s += (s.empty() ? "" : " ") + w;
	return s;
}

} // namespace

std::vector<std::string> shell_words(const std::string &cmd)
{
	std::vector<std::string> words;
	std::string w;
	bool in_word = false;
	char quote = 0;
	for (size_t i = 0; i < cmd.size(); i++) {
		char c = cmd[i];
		if (quote) {
			w += c;
			if (c == quote)
				quote = 0;
			else if (c == '\\' && quote == '"' && i + 1 < cmd.size())
				w += cmd[++i];
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n') {
			if (in_word)
				words.push_back(w);
			w.clear();
			in_word = false;
			continue;
		}
		in_word = true;
		w += c;
		if (c == '\'' || c == '"')
			quote = c;
		else if (c == '\\' && i + 1 < cmd.size())
			w += cmd[++i];
	}
	if (in_word)
		words.push_back(w);
	return words;
}

std::vector<std::string> program_words(const Recipe &r)
{
	std::vector<std::string> out;
	for (const std::string &s : r.steps) {
		std::vector<std::string> w = shell_words(s);
		if (w.empty() || w[0] == "{" || w[0] == "if" || w[0] == "printf" || w[0] == "sed" ||
		    w[0] == "echo")
			continue;
		out.push_back(w[0]);
	}
	return out;
}

std::optional<size_t> compile_step(const Recipe &r, const std::string &object)
{
	const std::string out = std::string("-o ") + kDirMark + "/" + object + " ";
	for (size_t i = 0; i < r.steps.size(); i++)
		if (r.steps[i].find(out) != std::string::npos && r.steps[i].find(" -c ") != std::string::npos)
			return i;
	return std::nullopt;
}

std::string leading_directives(const std::string &c_text)
{
	std::string out;
	size_t p = 0;
	while (p < c_text.size() && c_text[p] == '#') {
		size_t e = c_text.find('\n', p);
		if (e == std::string::npos)
			e = c_text.size();
		out += c_text.substr(p, e - p) + "\n";
		p = e + 1;
	}
	return out;
}

Result<PchMove> plan_pch(const Recipe &r, size_t index, const std::string &pch_dir,
			 const std::string &header, const std::string &own_headers,
			 const std::string &names_file)
{
	const std::string &step = r.steps.at(index);
	size_t semi = step.find(';');
	std::string cc = step.substr(0, semi);
	std::string rest = semi == std::string::npos ? "" : step.substr(semi);
	std::vector<std::string> words = shell_words(cc);
	std::vector<std::string> kept, forced;
	size_t at = std::string::npos;
	Pch pch;
	for (size_t i = 0; i < words.size(); i++) {
		const std::string &w = words[i];
		if (w == "-include" && i + 1 < words.size()) {
			if (at == std::string::npos)
				at = kept.size();
			forced.push_back(words[++i]);
		} else if (starts_with(w, "-D") && w.find(kNameMark) != std::string::npos) {
			pch.names_text += define_line(w);
		} else {
			kept.push_back(w);
		}
	}
	if (forced.empty() || pch.names_text.empty())
		return fail("kbuild's compile command has no forced -include or no name -D");
	if (kept.size() < 4 || kept[kept.size() - 4] != "-c" || kept[kept.size() - 3] != "-o")
		return fail("kbuild's compile command does not end in -c -o OBJECT SOURCE");

	// the PCH: the same command on HEADER, without -MMD
	std::vector<std::string> make_pch;
	for (size_t i = 0; i + 4 < kept.size(); i++)
		if (!starts_with(kept[i], "-Wp,-MMD,"))
			make_pch.push_back(kept[i]);
	for (const char *w : {"-x", "c-header", "-c", "-o"})
		make_pch.push_back(w);
	make_pch.push_back(std::string(kPchMark) + "/" + header + ".gch");
	make_pch.push_back(std::string(kPchMark) + "/" + header);
	pch.header = header;
	pch.create = join(make_pch);
	pch.text = "/* generated by stap-pmu: kbuild's forced headers, then the step's own "
		   "(translator/builder/kbuild_replay.h) */\n";
	for (const std::string &f : forced)
		pch.text += "#include \"" + f + "\"\n";
	pch.text += own_headers;
	pch.names_file = names_file;

	kept.insert(kept.begin() + static_cast<long>(at),
		    {"-include", pch_dir + "/" + header, "-include", std::string(kDirMark) + "/" + names_file});
	return PchMove{index, join(kept) + (rest.empty() ? "" : " " + rest), pch};
}

void apply(Recipe &r, const PchMove &m)
{
	r.steps.at(m.step) = m.command;
	r.pchs.push_back(m.pch);
}

Status use_pch(Recipe &r, size_t index, const std::string &pch_dir, const std::string &header,
	       const std::string &own_headers, const std::string &names_file)
{
	Result<PchMove> m = plan_pch(r, index, pch_dir, header, own_headers, names_file);
	if (!m)
		return m.error();
	apply(r, *m);
	return {};
}

std::string expand(const std::string &text, const std::string &dir, const std::string &name)
{
	std::string s = text;
	replace_all(s, kDirMark, dir);
	replace_all(s, kNameMark, name);
	return s;
}

std::string program_identity(const std::string &word, const std::string &tree)
{
	std::string path;
	if (word.find('/') != std::string::npos) {
		path = word[0] == '/' ? word : tree + "/" + word;
	} else {
		const char *env = getenv("PATH");
		std::istringstream dirs(env ? env : "/usr/bin:/bin");
		std::string d;
		while (std::getline(dirs, d, ':')) {
			std::string p = (d.empty() ? "." : d) + "/" + word;
			if (access(p.c_str(), X_OK) == 0) {
				path = p;
				break;
			}
		}
	}
	struct stat sb;
	if (path.empty() || stat(path.c_str(), &sb) != 0)
		return "";
	return path + " " + std::to_string(sb.st_size) + " " + std::to_string(sb.st_mtim.tv_sec) + "." +
	       std::to_string(sb.st_mtim.tv_nsec);
}

Result<Recipe> record(const std::string &dir, const std::string &name, const std::string &make_log)
{
	Recipe r;
	std::vector<std::string> raw;
	for (const std::string &t : {name + ".o", std::string("modules.order"), name + ".mod",
				     std::string("Module.symvers"), name + ".mod.o"}) {
		Result<std::string> c = read_cmd(dir, t);
		if (!c)
			return c.error();
		raw.push_back(*c);
	}
	// 6.12's objects common to every module of a directory (6.10 on)
	if (fs::exists(dir + "/..module-common.o.cmd")) {
		Result<std::string> c = read_cmd(dir, ".module-common.o");
		if (!c)
			return c.error();
		raw.push_back(*c);
	}
	Result<std::string> link = read_cmd(dir, name + ".ko");
	if (!link)
		return link.error();
	raw.push_back(*link);
	if (std::string btf = btf_step(make_log, dir + "/" + name + ".ko"); !btf.empty())
		raw.push_back(btf);

	for (std::string s : raw) {
		replace_all(s, dir, kDirMark);
		Result<std::string> m = mark_name(s, name);
		if (!m)
			return m.error();
		r.steps.push_back(*m);
	}
	// kbuild's cmd_and_fixdep: NAME.o's dependencies into .NAME.o.cmd,
	// which modpost reads (the files behind a module's srcversion)
	const std::string obj = std::string(kDirMark) + "/" + kNameMark + ".o";
	const std::string depfile = std::string(kDirMark) + "/." + kNameMark + ".o.d";
	r.steps.insert(r.steps.begin() + 1,
		       "scripts/basic/fixdep " + depfile + " " + obj + " " +
			       text::shell_quote(escape_make(r.steps.front())) + " > " + kDirMark + "/." +
			       kNameMark + ".o.cmd; rm -f " + depfile);
	return r;
	return r;
}

// One field a line: "step TEXT", "names TEXT", ..., with \ and newlines escaped.
namespace {

std::string esc(const std::string &s)
{
	std::string o;
	for (char c : s) {
		if (c == '\\')
			o += "\\\\";
		else if (c == '\n')
			o += "\\n";
		else
			o += c;
	}
	return o;
}

std::string unesc(const std::string &s)
{
	std::string o;
	for (size_t i = 0; i < s.size(); i++) {
		if (s[i] == '\\' && i + 1 < s.size()) {
			o += s[i + 1] == 'n' ? '\n' : s[i + 1];
			i++;
		} else {
			o += s[i];
		}
	}
	return o;
}

} // namespace

std::string to_text(const Recipe &r)
{
	std::string t = "stap-pmu kbuild recipe 1\n";
	for (const std::string &s : r.steps)
		t += "step " + esc(s) + "\n";
	for (const std::string &p : r.programs)
		t += "program " + esc(p) + "\n";
	for (const std::string &e : r.env)
		t += "env " + esc(e) + "\n";
	for (const Pch &p : r.pchs) {
		t += "pch " + esc(p.header) + "\n";
		t += "pch.text " + esc(p.text) + "\n";
		t += "pch.create " + esc(p.create) + "\n";
		t += "pch.names_file " + esc(p.names_file) + "\n";
		t += "pch.names " + esc(p.names_text) + "\n";
	}
	return t;
}

Result<Recipe> from_text(const std::string &text)
{
	std::istringstream in(text);
	std::string line;
	if (!std::getline(in, line) || line != "stap-pmu kbuild recipe 1")
		return fail("not a kbuild recipe of this stap-pmu");
	Recipe r;
	while (std::getline(in, line)) {
		size_t sp = line.find(' ');
		std::string field = line.substr(0, sp);
		std::string value = sp == std::string::npos ? "" : unesc(line.substr(sp + 1));
		if (field == "step") {
			r.steps.push_back(value);
		} else if (field == "program") {
			r.programs.push_back(value);
		} else if (field == "env") {
			r.env.push_back(value);
		} else if (field == "pch") {
			r.pchs.emplace_back();
			r.pchs.back().header = value;
		} else if (starts_with(field, "pch.") && !r.pchs.empty()) {
			Pch &p = r.pchs.back();
			if (field == "pch.text")
				p.text = value;
			else if (field == "pch.create")
				p.create = value;
			else if (field == "pch.names_file")
				p.names_file = value;
			else if (field == "pch.names")
				p.names_text = value;
			else
				return fail("unknown field '" + field + "' in a kbuild recipe");
		} else {
			return fail("unknown field '" + field + "' in a kbuild recipe");
		}
	}
	if (r.steps.empty())
		return fail("a kbuild recipe without commands");
	return r;
}

} // namespace stap_pmu::kbuild_replay
