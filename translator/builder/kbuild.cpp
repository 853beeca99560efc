// kbuild.cpp - writes NAME.c and a Kbuild file, runs make -C TREE M=DIR, or
// replays the commands kbuild ran for an earlier module (kbuild_replay.h).
#include "translator/builder/kbuild.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sys/wait.h>
#include <utility>

#include "translator/builder/cache.h"
#include "translator/builder/kbuild_replay.h"
#include "translator/builder/symvers.h"
#include "translator/support/file.h"
#include "translator/support/process.h"
#include "translator/support/text.h"

extern char **environ;

namespace fs = std::filesystem;

namespace stap_pmu {

namespace {

// Bumped whenever what a recipe holds or how it is replayed changes.
constexpr const char *kRecipeFormat = "kbuild-recipe-1";

// The compiler's messages in English, quoted in ASCII as stap-pmu's (the
// kernel's Makefile unexports LC_ALL)
constexpr const char *kLocale = "LANG=C LC_CTYPE=C LC_MESSAGES=C LC_ALL=C ";

bool write_file(const fs::path &p, const std::string &text)
{
	std::ofstream out(p, std::ios::binary | std::ios::trunc);
	out << text;
	return static_cast<bool>(out);
}

std::string kbuild_file(const KbuildRequest &req, const std::string &name)
{
	return "obj-m := " + name + ".o\n" + "ccflags-y := -I" + req.runtime_dir + " -Wno-unused-function" +
	       (req.debug_info ? "" : " -g0") + (req.extra_ccflags.empty() ? "" : " " + req.extra_ccflags) +
	       "\n" +
	       // columns in bytes, as the script's (cmap.h maps them back)
	       "ccflags-y += $(call cc-option,-fdiagnostics-column-unit=byte)\n" +
	       // no ftrace sites in the module: a probe's own path (the
	       // handlers, the bodies) never calls into ftrace
	       "CFLAGS_REMOVE_" + name + ".o += $(CC_FLAGS_FTRACE)\n";
}

struct Run {
	int status = -1;
	std::string out;
};

// A command (sh -c CMD) started now and read later, so that two run side by
// side; support/process kills it (and what it started) when stap-pmu is
// stopped or the object goes away unread.
class Started {
public:
	explicit Started(const std::string &cmd) : cmd_(cmd)
	{
		sys::Spawn s;
		s.argv = {"sh", "-c", cmd};
		s.in = sys::Spawn::kInherit;
		s.err = sys::Spawn::kInherit;
		if (auto c = sys::Captured::start(s))
			c_.emplace(std::move(*c));
	}
	// its standard output (and what the command sends there) and exit status
	Run finish()
	{
		Run r;
		std::optional<sys::Captured> c = std::exchange(c_, std::nullopt);
		Result<sys::Captured::Output> o = c ? c->finish() : fail("");
		if (!o) {
			r.out = "cannot run " + cmd_ + "\n";
			return r;
		}
		r.out = std::move(o->out);
		r.status = WIFEXITED(o->status) ? WEXITSTATUS(o->status) : -1;
		return r;
	}

private:
	std::string cmd_;
	std::optional<sys::Captured> c_;
};

// sh -c CMD 2>&1, its output and exit status
Run run(const std::string &cmd) { return Started(cmd + " 2>&1").finish(); }

// Everything kbuild's commands depend on besides the C: the tree, its
// tools, the make variables, the environment kbuild reads, the Kbuild file
// (with the name as a placeholder) and the precompiled runtime header. Not
// PATH: the recipe holds the programs it found there (load_recipe).
std::string recipe_key(const KbuildRequest &req)
{
	cache::Key k;
	k.add("format", kRecipeFormat);
	k.add("tree", fs::absolute(req.build_tree).string());
	cache::add_build_tree(k, req.build_tree, "");
	k.add_file("tree.makefile", req.build_tree + "/Makefile");
	k.add_file_stat("tree.modpost", req.build_tree + "/scripts/mod/modpost");
	k.add_file_stat("tree.objtool", req.build_tree + "/tools/objtool/objtool");
	k.add("kbuild", kbuild_file(req, kbuild_replay::kNameMark));
	k.add("arch", req.arch ? kbuild_arch(*req.arch) : "");
	k.add("cross", req.cross_compile);
	for (const std::string &v : req.make_vars)
		k.add("var", v);
	for (char **e = environ; *e; e++) {
		std::string v = *e;
		std::string n = v.substr(0, v.find('='));
		if (n.rfind("KBUILD_", 0) == 0 || n.rfind("LLVM", 0) == 0 || n == "ARCH" || n == "CROSS_COMPILE" || n == "KCFLAGS" || n == "KCPPFLAGS" ||
		    n == "KAFLAGS" || n == "KRUSTFLAGS" || n == "CC" || n == "LD" || n == "V" ||
		    n == "W" || n == "C" || n == "O")
			k.add("env", v);
	}
	k.add_file("stp_kernel.h", req.runtime_dir + "/stp_kernel.h");
	return k.hex();
}

std::string make_command(const KbuildRequest &req, const fs::path &dir)
{
	std::string cmd = std::string(kLocale) + "make -C " + text::shell_quote(req.build_tree) +
			  " M=" + text::shell_quote(fs::absolute(dir).string());
	if (req.arch)
		cmd += std::string(" ARCH=") + text::shell_quote(kbuild_arch(*req.arch));
	if (!req.cross_compile.empty())
		cmd += " CROSS_COMPILE=" + text::shell_quote(req.cross_compile);
	for (const std::string &v : req.make_vars)
		cmd += " " + text::shell_quote(v);
	return cmd + " modules";
}

// The recipe in rdir when it is there and its programs are the ones it was
// recorded with. stale: there is one, but not for these programs (another
// compiler first in PATH), or unreadable: the next recording replaces it.
std::optional<kbuild_replay::Recipe> load_recipe(const std::string &rdir, const std::string &tree,
						 bool &stale)
{
	auto text = sys::read_file(rdir + "/recipe");
	if (!text)
		return std::nullopt;
	stale = true;
	Result<kbuild_replay::Recipe> r = kbuild_replay::from_text(*text);
	if (!r)
		return std::nullopt;
	for (const kbuild_replay::Pch &p : r->pchs)
		if (!fs::exists(rdir + "/" + p.header + ".gch"))
			return std::nullopt;
	std::vector<std::string> words = kbuild_replay::program_words(*r);
	if (words.size() != r->programs.size())
		return std::nullopt;
	for (size_t i = 0; i < words.size(); i++)
		if (kbuild_replay::program_identity(words[i], tree) != r->programs[i])
			return std::nullopt;
	stale = false;
	return std::move(*r);
}

// The position of " -i Module.symvers" (the kernel's exports) in a
// modpost step, or npos.
size_t kernel_symvers_arg(const std::string &step)
{
	if (step.find("scripts/mod/modpost") == std::string::npos)
		return std::string::npos;
	const std::string arg = " -i Module.symvers";
	for (size_t p = step.find(arg); p != std::string::npos; p = step.find(arg, p + 1))
		if (p + arg.size() == step.size() || step[p + arg.size()] == ' ')
			return p;
	return std::string::npos;
}

// The recipe's commands for this module, run from the tree. modpost is
// given only the lines of the kernel's Module.symvers that the module
// imports (symvers.h): the steps before it run first, then the object's
// undefined symbols select the lines.
Run replay(const KbuildRequest &req, const kbuild_replay::Recipe &rc, const std::string &dir)
{
	const std::string &name = req.module_name;
	for (const kbuild_replay::Pch &p : rc.pchs)
		if (!write_file(dir + "/" + p.names_file, kbuild_replay::expand(p.names_text, dir, name)))
			return {-1, "cannot write " + dir + "/" + p.names_file + "\n"};
	std::string head = "set -e\ncd " + text::shell_quote(req.build_tree) + "\n";
	for (const std::string &e : rc.env) {
		std::string v = kbuild_replay::expand(e, dir, name);
		size_t eq = v.find('=');
		head += "export " + v.substr(0, eq) + "=" + text::shell_quote(v.substr(eq + 1)) + "\n";
	}
	std::vector<std::string> steps;
	size_t modpost = rc.steps.size();
	for (const std::string &s : rc.steps) {
		steps.push_back(kbuild_replay::expand(s, dir, name));
		if (modpost == rc.steps.size() && kernel_symvers_arg(steps.back()) != std::string::npos)
			modpost = steps.size() - 1;
	}
	auto run_steps = [&](size_t from, size_t to, const std::string &file) -> Run {
		std::string script = head;
		for (size_t i = from; i < to; i++)
			script += steps[i] + "\n";
		const std::string path = dir + "/" + file;
		if (!write_file(path, script))
			return {-1, "cannot write " + path + "\n"};
		return run(std::string(kLocale) + "sh " + text::shell_quote(path));
	};
	if (modpost == steps.size())
		return run_steps(0, steps.size(), ".stp_kbuild.sh");
	Run before = run_steps(0, modpost, ".stp_kbuild.sh");
	if (before.status != 0)
		return before;
	Result<std::vector<std::string>> imports = symvers::undefined_symbols(dir + "/" + name + ".o");
	auto kernel = sys::read_file(req.build_tree + "/Module.symvers");
	const std::string mine = dir + "/.stp_symvers";
	if (imports && kernel && write_file(mine, symvers::select(*kernel, *imports)))
		steps[modpost].replace(kernel_symvers_arg(steps[modpost]), 18,
				       " -i " + text::shell_quote(mine));
	Run after = run_steps(modpost, steps.size(), ".stp_kbuild2.sh");
	after.out = before.out + after.out;
	return after;
}

// make's command line with GOAL instead of "modules"
std::string make_goal(const KbuildRequest &req, const std::string &dir, const std::string &goal)
{
	std::string cmd = make_command(req, dir);
	return cmd.replace(cmd.rfind(" modules"), 8, " " + goal);
}

// What make exports to kbuild's commands (`env -0` in a rule added with
// --eval), where it differs from ours.
Result<std::vector<std::string>> parse_env(const Run &run, const std::string &dir)
{
	if (run.status != 0)
		return fail("make did not print its environment");
	// make's own bookkeeping, not kbuild's
	static const char *const skip[] = {"MAKEFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MFLAGS",
					   "MAKE_TERMOUT", "MAKE_TERMERR", "_", "OLDPWD", "PWD"};
	const std::string &out = run.out;
	std::vector<std::string> env;
	size_t at = 0;
	while (at < out.size()) {
		size_t end = out.find('\0', at);
		if (end == std::string::npos)
			end = out.size();
		std::string v = out.substr(at, end - at);
		at = end + 1;
		size_t eq = v.find('=');
		if (eq == std::string::npos || eq == 0)
			continue;
		std::string name = v.substr(0, eq);
		if (std::find(std::begin(skip), std::end(skip), name) != std::end(skip) ||
		    !std::all_of(name.begin(), name.end(),
				 [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
			continue;
		const char *ours = getenv(name.c_str());
		if (ours && v.compare(eq + 1, std::string::npos, ours) == 0)
			continue;
		for (size_t q = v.find(dir); q != std::string::npos; q = v.find(dir, q))
			v.replace(q, dir.size(), kbuild_replay::kDirMark);
		env.push_back(v);
	}
	if (env.empty())
		return fail("make printed no environment");
	return env;
}

// A compile step to move onto a PCH: the object, the PCH's header and the
// step's own headers.
struct PchPlan {
	std::string object, header, own;
};

// What a recording needs besides kbuild's .cmd files, asked of make while
// it builds the module (make runs one command at a time; the build host has
// two cores): the BTF step, which no .cmd file holds and make V=1 -n -W
// NAME.o shows without running anything, and what make exports to the
// commands, which a rule added with --eval prints.
struct MakeQueries {
	MakeQueries(const KbuildRequest &req, const std::string &dir)
		: dry(make_goal(req, dir,
				"V=1 -n -W " + text::shell_quote(dir + "/" + req.module_name + ".o") +
					" modules") +
		      " 2>&1"),
		  env(make_goal(req, dir, "-s --eval='stp-pmu-env: ; @env -0' stp-pmu-env") + " 2>/dev/null")
	{
	}
	Started dry, env;
};

// After make built the module: its commands as the recipe in rdir, the
// module's compiles on precompiled headers. Returns what happened, for -v.
std::string store_recipe(const KbuildRequest &req, const std::string &dir, const std::string &rdir,
			 bool stale, MakeQueries &q)
{
	const std::string parent = fs::path(rdir).parent_path().string();
	std::error_code ec;
	fs::create_directories(parent, ec);
	std::string tmp = parent + "/.tmp-XXXXXX";
	if (ec || !mkdtemp(tmp.data()))
		return "kbuild's commands not recorded: cannot create a directory in " + parent;
	Run dry_run = q.dry.finish();
	Result<std::vector<std::string>> env = parse_env(q.env.finish(), dir);
	Result<kbuild_replay::Recipe> rc = kbuild_replay::record(dir, req.module_name, dry_run.out);
	if (rc && !env)
		rc = env.error();
	std::string note;
	if (rc) {
		rc->env = std::move(*env);
		// the runtime's kernel headers (runtime/stp_kernel.h), and those of kbuild's NAME.mod.c
		std::vector<PchPlan> plans{{std::string(kbuild_replay::kNameMark) + ".o", "stp_pch.h",
					    "#include \"stp_kernel.h\"\n"}};
		if (auto modc = sys::read_file(dir + "/" + req.module_name + ".mod.c"))
			plans.push_back({std::string(kbuild_replay::kNameMark) + ".mod.o", "stp_modc_pch.h",
					 kbuild_replay::leading_directives(*modc)});
		// each PCH made side by side; the recipe moves onto those gcc made
		std::vector<std::unique_ptr<Started>> making;
		std::vector<kbuild_replay::PchMove> moves;
		for (const PchPlan &p : plans) {
			std::optional<size_t> step = kbuild_replay::compile_step(*rc, p.object);
			const std::string names = "." + p.header.substr(0, p.header.size() - 2) + "_names.h";
			Result<kbuild_replay::PchMove> m =
				step ? kbuild_replay::plan_pch(*rc, *step, rdir, p.header, p.own, names)
				     : fail("kbuild compiled no " + p.object);
			if (!m) {
				note += "; no precompiled " + p.header + ": " + m.error().what;
				continue;
			}
			std::string cmd = "cd " + text::shell_quote(req.build_tree) + " && " + kLocale +
					  kbuild_replay::expand(m->pch.create, dir, req.module_name);
			for (size_t at = cmd.find(kbuild_replay::kPchMark); at != std::string::npos;
			     at = cmd.find(kbuild_replay::kPchMark, at))
				cmd.replace(at, strlen(kbuild_replay::kPchMark), tmp);
			if (!write_file(tmp + "/" + p.header, m->pch.text))
				continue;
			making.push_back(std::make_unique<Started>(cmd + " 2>&1"));
			moves.push_back(std::move(*m));
		}
		for (size_t i = 0; i < making.size(); i++) {
			Run made = making[i]->finish();
			if (made.status == 0)
				kbuild_replay::apply(*rc, moves[i]);
			else
				note += "; no precompiled " + moves[i].pch.header + ": " +
					made.out.substr(0, made.out.find('\n'));
		}
		for (const std::string &w : kbuild_replay::program_words(*rc)) {
			rc->programs.push_back(kbuild_replay::program_identity(w, req.build_tree));
			if (rc->programs.back().empty()) {
				rc = fail("cannot find the program " + w);
				break;
			}
		}
	}
	if (!rc || !write_file(tmp + "/recipe", kbuild_replay::to_text(*rc))) {
		fs::remove_all(tmp, ec);
		return "kbuild's commands not recorded: " + (rc ? "cannot write " + tmp : rc.error().what);
	}
	// a concurrent recording of the same key wins harmlessly; a stale
	// recipe is moved aside first
	if (stale) {
		const std::string old = tmp + ".stale";
		fs::rename(rdir, old, ec);
		fs::remove_all(old, ec);
	}
	fs::rename(tmp, rdir, ec);
	if (ec) {
		fs::remove_all(tmp, ec);
		return "kbuild's commands recorded in " + rdir + " by another build meanwhile";
	}
	return "kbuild's commands recorded in " + rdir + " for the next builds" + note;
}

} // namespace

KbuildResult kbuild(const KbuildRequest &req)
{
	Kbuilt r;
	fs::path dir = req.work_dir;
	std::error_code ec;
	fs::create_directories(dir, ec);
	if (ec)
		return KbuildError{fail("cannot create " + dir.string() + ": " + ec.message())};
	if (!write_file(dir / (req.module_name + ".c"), req.c_source) ||
	    !write_file(dir / "Kbuild", kbuild_file(req, req.module_name)))
		return KbuildError{fail("cannot write the module source in " + dir.string())};
	if (!fs::exists(fs::path(req.build_tree) / "Makefile"))
		return KbuildError{fail("kernel build tree " + req.build_tree + " has no Makefile")};
	const std::string adir = fs::absolute(dir).string();
	const fs::path ko = dir / (req.module_name + ".ko");
	std::string rdir;
	std::optional<kbuild_replay::Recipe> recipe;
	bool stale = false;
	std::string replay_note, rp_out;
	int rp_status = 0;
	// a recipe that failed where make succeeded: make, and no new recording
	std::optional<std::string> broken;
	if (req.replay) {
		rdir = req.recipe_dir + "/" + recipe_key(req);
		broken = sys::read_file(rdir + "/broken");
		if (!broken)
			recipe = load_recipe(rdir, req.build_tree, stale);
	}
	// the test hook: a replay that failed is not a build, make's run after it is
	const std::string &hook = req.build_log;
	if (recipe) {
		Run rp = replay(req, *recipe, adir);
		if (rp.status == 0 && fs::exists(ko)) {
			if (!hook.empty()) {
				std::ofstream log(hook, std::ios::app);
				log << make_command(req, dir) << "  # replayed from " << rdir << "\n";
			}
			r.ko_path = ko.string();
			r.log = rp.out;
			r.how = "replayed kbuild's commands recorded in " + rdir;
			return r;
		}
		// make decides: a compile error fails there too, with make's output
		rp_status = rp.status;
		rp_out = rp.out;
		replay_note = "the replay of kbuild's commands in " + rdir + " failed (status " +
			      std::to_string(rp.status) + (req.verbose ? ":\n" + rp.out : ")") + "; ";
	}
	// no recipe yet: make's answers for recording it, while make builds
	std::unique_ptr<MakeQueries> queries;
	if (req.replay && !recipe && !broken)
		queries = std::make_unique<MakeQueries>(req, adir);
	std::string cmd = make_command(req, dir);
	if (!hook.empty()) {
		std::ofstream log(hook, std::ios::app);
		log << cmd << "\n";
	}
	Run mk = run(cmd);
	r.log = mk.out;
	if (mk.status != 0 || !fs::exists(ko)) {
		KbuildError e{fail("kbuild failed (make exit status " + std::to_string(mk.status) + ")")};
		e.log = mk.out;
		e.c_path = (fs::absolute(dir) / (req.module_name + ".c")).string();
		fs::path log_path = fs::absolute(dir) / "make.log";
		if (write_file(log_path, cmd + "\n" + e.log))
			e.log_path = log_path.string();
		return e;
	}
	r.ko_path = ko.string();
	r.how = replay_note + "make";
	if (broken) {
		r.how += " (the recipe in " + rdir + " failed before: " + broken->substr(0, broken->find('\n')) + ")";
	} else if (recipe) {
		// make built what the replay could not: the recipe does not fit
		// this kernel's build (a step kbuild did not record); later builds
		// of this key run make without recording it again
		std::string first = rp_out.substr(0, rp_out.find('\n'));
		write_file(rdir + "/broken", "status " + std::to_string(rp_status) + ": " + first + "\n");
		r.how += "; the recipe is marked broken, make builds for it from now on";
	} else if (req.replay) {
		r.how += "; " + store_recipe(req, adir, rdir, stale, *queries);
	}
	return r;
}

} // namespace stap_pmu
