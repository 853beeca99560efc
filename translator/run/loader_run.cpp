// loader_run.cpp - the load sequence of docs/runtime.md (run_module): load,
// start the -c command, poll, stop, drain, unload. libc + libstdc++ only.
#include "translator/run/loader.h"

#include "translator/run/loader_detail.h"
#include "translator/support/process.h"
#include "translator/support/signals.h"
#include "translator/support/sysutil.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace stap_pmu::loader {

namespace {

using namespace detail;
using sys::now_ms;
using sys::sleep_ms;

// ---- /dev/kmsg ------------------------------------------------------------

sys::Fd open_kmsg_at_end()
{
	sys::Fd fd = sys::Fd::open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd && lseek(fd.get(), 0, SEEK_END) < 0)
		fd.reset();
	return fd;
}

// Copies new kernel log records that mention the module to stderr; returns them.
std::vector<std::string> copy_module_kmsg(const sys::Fd &fd, const std::string &module)
{
	std::vector<std::string> lines;
	if (!fd)
		return lines;
	char buf[8192];
	for (int i = 0; i < 100000; i++) {
		ssize_t r = read(fd.get(), buf, sizeof buf);
		if (r < 0) {
			if (errno == EINTR || errno == EPIPE) // EPIPE: records overwritten, go on
				continue;
			break; // EAGAIN: nothing more
		}
		if (r == 0)
			break;
		std::string text = kmsg_text(std::string_view(buf, (size_t)r));
		if (text.find(module) == std::string::npos)
			continue;
		// The taint notices name every out-of-tree module; they are not load errors.
		if (text.find("taints kernel") != std::string::npos ||
		    text.find("tainting kernel") != std::string::npos)
			continue;
		say(text);
		lines.push_back(text);
	}
	return lines;
}

// ---- the session --------------------------------------------------------------

class LoaderSession {
public:
	explicit LoaderSession(const LoadOptions &o) : o_(o) {}
	Result<int> run();

private:
	Status open_inputs();
	Status start_command();
	Status load();
	void open_module_files();
	void wait_started();
	void release_command();
	bool refresh();
	std::string poll();
	void stop(const std::string &reason);
	void finish_command(bool verbose);
	void run_system_commands();
	void wait_system_commands();
	int exit_code();

	const LoadOptions &o_;
	std::string name_;
	sys::Fd ko_, out_file_;
	Sink out_;
	int target_ = 0;
	// A pipe reader that went away must not kill the loader before it
	// unloads; SIGINT and SIGTERM stop the script (caught after the command
	// started: it keeps the default dispositions until it runs).
	std::optional<sys::SignalScope> no_sigpipe_, stop_signals_;
	std::optional<sys::Child> cmd_;
	sys::Fd system_;                  // /proc/<module>/system: the script calls system()
	std::vector<sys::Child> system_cmds_; // its commands still running
	ModuleFiles mf_;
	std::optional<ModuleStatus> st_;
	bool failed_ = false;
	int rc_ = 1;
};

Result<int> LoaderSession::run()
{
	Status s = open_inputs();
	if (s) {
		no_sigpipe_.emplace(sys::SignalScope::kIgnorePipe);
		s = start_command();
	}
	if (!s)
		return s.error();
	stop_signals_.emplace(sys::SignalScope::kCatchStop);
	if (Status l = load(); !l) {
		finish_command(false);
		return l.error();
	}
	open_module_files();
	release_command();
	std::string reason = failed_ ? "" : poll();
	stop(reason);
	run_system_commands(); // those the end probes queued
	wait_system_commands();
	finish_command(o_.verbose);
	if (o_.verbose && cmd_ && cmd_->poll())
		say("stap-pmu: the command " + sys::describe_wait(*cmd_->poll()));
	if (Status u = unload(name_, o_.unload_timeout_ms, o_.verbose); !u)
		return u.error();
	return exit_code();
}

Status LoaderSession::open_inputs()
{
	if (o_.module_path.empty())
		return fail("no module given");
	name_ = o_.module_name;
	if (name_.empty())
		name_ = modinfo_name(o_.module_path).value_or(module_name_from_path(o_.module_path));
	ko_ = sys::Fd::open(o_.module_path, O_RDONLY);
	if (!ko_)
		return fail("cannot open " + o_.module_path + ": " + strerror(errno));
	out_.fd = o_.output_fd;
	if (!o_.output_file.empty()) {
		auto f = open_output_file(o_.output_file);
		if (!f)
			return f.error();
		out_file_ = std::move(*f);
		out_.fd = out_file_.get();
	}
	target_ = o_.target_pid;
	return {};
}

// The -c command starts now, so that its pid is the module's target, but is
// held on a pipe until the module runs. A plain "prog arg..." is executed
// directly, so that target() is the program itself and no shell start-up
// syscalls (ash and dash both call getpid) are attributed to it; anything
// else goes through /bin/sh -c.
Status LoaderSession::start_command()
{
	if (o_.command.empty())
		return {};
	sys::Spawn s;
	s.argv = simple_command_words(o_.command);
	if (s.argv.empty()) {
		s.file = "/bin/sh";
		s.argv = {"sh", "-c", o_.command};
	}
	s.in = s.out = s.err = sys::Spawn::kInherit;
	s.default_signals = false;
	s.held = true;
	s.exec_error_prefix = "stap-pmu: error: ";
	auto c = sys::Child::start(s);
	if (!c)
		return c.error();
	cmd_.emplace(std::move(*c));
	target_ = cmd_->pid();
	return {};
}

// finit_module, with the module's kernel log lines on failure.
Status LoaderSession::load()
{
	std::string params = module_params(target_) + " " + local_tz_module_params();
	if (o_.verbose)
		say("stap-pmu: loading " + o_.module_path + " as " + name_ + " (" + params + ")");
	sys::Fd kmsg = open_kmsg_at_end();
	long long t0 = now_ms();
	if (syscall(SYS_finit_module, ko_.get(), params.c_str(), 0) != 0) {
		int e = errno;
		LoadEnv env = probe_load_env();
		env.kmsg = copy_module_kmsg(kmsg, name_);
		env.module_vermagic = modinfo_field(o_.module_path, "vermagic").value_or("");
		env.module_signed = module_is_signed(o_.module_path);
		env.module_checked = true;
		return fail(load_error_message(e, name_, env));
	}
	if (o_.verbose) // the module's init lines: the PMU row each CPU selected
		copy_module_kmsg(kmsg, name_);
	kmsg.reset();
	ko_.reset();
	if (o_.verbose)
		say("stap-pmu: loaded " + name_ + " in " + std::to_string(now_ms() - t0) + " ms");
	return {};
}

void LoaderSession::open_module_files()
{
	mf_.dir = "/proc/" + name_;
	mf_.json = o_.json;
	system_ = sys::Fd::open(mf_.dir + "/system", O_RDONLY | O_NONBLOCK);
	if (Status st = open_output(mf_); !st) {
		error("module " + name_ + " has no " + mf_.dir + (mf_.json ? "/records (" : "/output (") +
		      st.error().what + "); is it a stap-pmu module?");
		failed_ = true;
		return;
	}
	wait_started();
}

// Drains the output and reads the status; false (reported) when it cannot.
bool LoaderSession::refresh()
{
	drain_output(mf_, out_);
	run_system_commands();
	auto st = read_status(mf_);
	if (!st) {
		error(st.error().what);
		st_.reset();
		failed_ = true;
		return false;
	}
	st_ = *st;
	return true;
}

// Waits (bounded) for the module to leave "starting".
void LoaderSession::wait_started()
{
	long long deadline = now_ms() + o_.stop_timeout_ms;
	while (refresh()) {
		if (st_->state != "starting" || stop_signals_->caught())
			return;
		if (now_ms() >= deadline) {
			error("module " + name_ + " still in state starting after " +
			      std::to_string(o_.stop_timeout_ms / 1000) + " s");
			failed_ = true;
			return;
		}
		sleep_ms(o_.poll_ms);
	}
}

// Lets the command run once the module does; otherwise it never runs.
void LoaderSession::release_command()
{
	if (!cmd_)
		return;
	bool run_cmd = !failed_ && st_ && st_->state == "running" && !stop_signals_->caught();
	cmd_->release(run_cmd);
	if (o_.verbose)
		say(std::string("stap-pmu: ") + (run_cmd ? "started" : "did not start") +
		    " the command (pid " + std::to_string(cmd_->pid()) + ")");
}

// Copies the output until something ends the run; returns what ("" : an error).
std::string LoaderSession::poll()
{
	while (refresh()) {
		const std::string &state = st_->state;
		if (state == "exit-requested" || state == "stopping" || state == "stopped")
			return "the script requested exit";
		if (int sig = stop_signals_->caught())
			return std::string("signal ") + strsignal(sig);
		if (cmd_)
			if (auto ws = cmd_->poll())
				return "the command " + sys::describe_wait(*ws);
		if (!out_.ok)
			return "the output cannot be written";
		sleep_ms(o_.poll_ms);
	}
	return "";
}

// Stops the module and drains its output until it is stopped.
void LoaderSession::stop(const std::string &reason)
{
	if (!mf_.output)
		return;
	if (o_.verbose && !reason.empty())
		say("stap-pmu: stopping: " + reason);
	std::optional<ModuleStatus> fin =
		stop_and_drain(mf_, out_, st_, name_, o_.stop_timeout_ms, o_.poll_ms);
	if (fin && o_.verbose && fin->nested)
		say(nested_note(*fin));
	if (fin)
		rc_ = fin->exit_code;
	else
		failed_ = true;
	mf_.output.reset();
}

// Ends a command that outlived the script: SIGTERM, then SIGKILL after 2 s.
void LoaderSession::finish_command(bool verbose)
{
	if (!cmd_)
		return;
	cmd_->release(false);
	if (cmd_->poll())
		return;
	if (verbose)
		say("stap-pmu: terminating the command (pid " + std::to_string(cmd_->pid()) + ")");
	cmd_->kill(SIGTERM);
	if (!cmd_->wait_for(2000, 20)) {
		cmd_->kill(SIGKILL);
		cmd_->wait();
	}
}

// The script's system(cmd) calls: each command the module queued runs now
// with /bin/sh -c, with the loader's standard output and error (not -o's
// file), while the script goes on, as SystemTap's staprun runs them.
void LoaderSession::run_system_commands()
{
	char buf[8192];
	ssize_t n;
	while (system_ && (n = read(system_.get(), buf, sizeof buf)) > 0) {
		std::string cmd(buf, strnlen(buf, static_cast<size_t>(n)));
		sys::Spawn s;
		s.file = "/bin/sh";
		s.argv = {"sh", "-c", cmd};
		s.out = s.err = sys::Spawn::kInherit;
		auto c = sys::Child::start(s);
		if (!c) {
			error("system(" + cmd + "): " + c.error().what);
			continue;
		}
		if (o_.verbose)
			say("stap-pmu: system(): pid " + std::to_string(c->pid()) + ": " + cmd);
		system_cmds_.push_back(std::move(*c));
	}
	std::erase_if(system_cmds_, [](sys::Child &c) { return c.poll().has_value(); });
}

// At the end: the commands still running get the stop timeout to finish;
// those that outlive it are killed.
void LoaderSession::wait_system_commands()
{
	long long deadline = now_ms() + o_.stop_timeout_ms;
	for (sys::Child &c : system_cmds_)
		if (long long left = deadline - now_ms(); left > 0)
			c.wait_for(left, 10);
	std::erase_if(system_cmds_, [](sys::Child &c) { return c.poll().has_value(); });
	if (!system_cmds_.empty())
		say("stap-pmu: killing " + std::to_string(system_cmds_.size()) +
		    " system() command(s) still running after " +
		    std::to_string(o_.stop_timeout_ms / 1000) + " s");
	system_cmds_.clear();
	system_.reset();
}

int LoaderSession::exit_code()
{
	if (cmd_ && cmd_->exec_errno())
		failed_ = true; // "cannot run ..." was printed by the child
	if (failed_ || !out_.ok || rc_ < 0 || rc_ > 255)
		return 1;
	return rc_;
}

} // namespace

Result<int> run_module(const LoadOptions &opts)
{
	return LoaderSession(opts).run();
}

} // namespace stap_pmu::loader
