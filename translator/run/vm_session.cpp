// vm_session.cpp - one run of a module in a QEMU guest (run_in_vm): check the
// inputs, build the initramfs, boot, stream the serial ports, read the exit
// status and the kernel's complaints from the console log.
#include "translator/run/vm.h"

#include "translator/support/file.h"
#include "translator/support/process.h"
#include "translator/support/signals.h"
#include "translator/support/sysutil.h"
#include "translator/support/text.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace stap_pmu::vm {

namespace {

using sys::now_ms;
using sys::write_all;

struct Reporter {
	int fd;
	void line(const std::string &s) const
	{
		std::string l = s + "\n";
		write_all(fd, l.data(), l.size());
	}
	void error(const std::string &s) const { line("stap-pmu: error: " + s); }
	void error(const Error &e) const { error(e.what + (e.hint.empty() ? "" : " (" + e.hint + ")")); }
	void info(const std::string &s) const { line("stap-pmu: " + s); }
};

// Incrementally copies what QEMU appended to a serial log file to an fd,
// whole lines at a time (take_whole_lines); flush() writes the rest.
struct Tail {
	sys::Fd fd;
	int dest = -1;
	bool ok = true;
	std::string pending;
	void open_file(const std::string &path)
	{
		if (!fd)
			fd = sys::Fd::open(path, O_RDONLY);
	}
	void pump()
	{
		if (!fd)
			return;
		char buf[65536];
		ssize_t r;
		while ((r = sys::read_some(fd.get(), buf, sizeof buf)) > 0)
			put(take_whole_lines(pending, std::string_view(buf, (size_t)r)));
	}
	void flush()
	{
		pump();
		put(pending);
		pending.clear();
	}

private:
	void put(const std::string &s)
	{
		if (ok && !s.empty() && !write_all(dest, s.data(), s.size()))
			ok = false;
	}
};

std::string fmt_secs(long long ms)
{
	char b[32];
	snprintf(b, sizeof b, "%.1f", (double)ms / 1000.0);
	return b;
}

std::string first_line(const std::string &s)
{
	return s.substr(0, s.find('\n'));
}

// Copies the initramfs entries below root and lists them, one a line, in list_path.
Status write_root(const VmOptions &o, const std::string &root, const std::string &list_path)
{
	std::error_code ec;
	fs::create_directories(root, ec);
	if (ec)
		return fail("cannot create " + root + ": " + ec.message());
	std::string list;
	auto entries = guest_entries(o);
	if (!entries)
		return entries.error();
	for (const auto &e : *entries) {
		std::string dst = root + "/" + e.path;
		if (e.is_dir) {
			fs::create_directories(dst, ec);
		} else if (!e.link.empty()) {
			fs::create_symlink(e.link, dst, ec);
			if (!ec) {
				list += e.path + "\n";
				continue; // no chmod through a link
			}
		} else if (!e.source.empty()) {
			fs::copy_file(e.source, dst, fs::copy_options::overwrite_existing, ec);
		} else {
			std::ofstream f(dst, std::ios::binary | std::ios::trunc);
			f << e.content;
			if (!f)
				ec = std::make_error_code(std::errc::io_error);
		}
		if (ec)
			return fail("initramfs: cannot create /" + e.path +
				    (e.source.empty() ? "" : " from " + e.source) + ": " + ec.message());
		if (chmod(dst.c_str(), e.mode) != 0)
			return fail("initramfs: chmod /" + e.path + ": " + strerror(errno));
		list += e.path + "\n";
	}
	std::ofstream f(list_path, std::ios::binary | std::ios::trunc);
	f << list;
	if (!f)
		return fail("cannot write " + list_path);
	return {};
}

// cpio -o of the files in list_path (below root), then gzip -1 into img.
Status pack(const std::string &dir, const std::string &root, const std::string &list_path,
	    const std::string &img)
{
	std::string cpio_path = dir + "/initramfs.cpio", log_path = dir + "/cpio.log";
	{
		sys::Fd in = sys::Fd::open(list_path, O_RDONLY);
		sys::Fd out = sys::Fd::open(cpio_path, O_WRONLY | O_CREAT | O_TRUNC);
		sys::Fd log = sys::Fd::open(log_path, O_WRONLY | O_CREAT | O_TRUNC);
		if (!in || !out)
			return fail(std::string("initramfs: cannot create the cpio archive: ") + strerror(errno));
		sys::Spawn cpio;
		cpio.argv = {"cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"};
		cpio.in = in.get();
		cpio.out = out.get();
		cpio.err = log ? log.get() : sys::Spawn::kNull;
		cpio.cwd = root;
		auto st = sys::run(cpio, 60);
		if (!st)
			return fail("initramfs: " + st.error().what,
				    st.error().what.rfind("cannot run", 0) == 0 ? "install cpio" : "");
		if (*st != 0)
			return fail("initramfs: cpio failed: " + sys::read_file(log_path, 400).value_or(""));
	}
	sys::Fd in = sys::Fd::open(cpio_path, O_RDONLY);
	sys::Fd out = sys::Fd::open(img, O_WRONLY | O_CREAT | O_TRUNC);
	if (!in || !out)
		return fail("initramfs: gzip failed");
	sys::Spawn gzip;
	gzip.argv = {"gzip", "-1", "-n", "-c"};
	gzip.in = in.get();
	gzip.out = out.get();
	auto st = sys::run(gzip, 60);
	if (!st || *st != 0)
		return fail("initramfs: " + (st ? std::string("gzip failed") : st.error().what));
	unlink(cpio_path.c_str());
	return {};
}

class VmSession {
public:
	explicit VmSession(const VmOptions &o) : o_(o), rep_{o.error_fd} {}
	int run();

private:
	Status check_inputs() const;
	Status make_dir();
	Status prepare_initramfs();
	Status boot();
	void stream();
	bool send_stop();
	int collect_status();
	size_t report_kernel_problems(const std::string &con);
	void report_no_status() const;
	void keep_logs_only();

	const VmOptions &o_;
	Reporter rep_;
	long long t_start_ = now_ms(), t_initramfs_ = 0, t_boot_ = 0, t_end_ = 0;
	std::string dir_, img_, console_;
	// Declared in this order so that they end in the other: QEMU is gone
	// before its files, the signal handlers last (an interrupt after the VM
	// ended must not skip the clean-up).
	std::optional<sys::SignalScope> signals_;
	std::optional<sys::TempDir> tmp_;
	std::optional<sys::Child> qemu_;
	Tail out_, err_;
	sys::Fd ctl_;
	int qstatus_ = 0;
	bool timed_out_ = false, killed_ = false;
};

int VmSession::run()
{
	Status s = check_inputs();
	if (s)
		s = make_dir();
	if (s)
		s = prepare_initramfs();
	if (s)
		s = boot();
	if (!s) {
		rep_.error(s.error());
		return 1;
	}
	stream();
	return collect_status();
}

// Inputs first: every missing piece is one clear message.
Status VmSession::check_inputs() const
{
	struct Need {
		const std::string &path;
		const char *what;
	};
	for (const Need &n : {Need{o_.module_path, "module"},
			      Need{o_.loader_path, "guest loader (stap-pmu-loader)"},
			      Need{o_.workload_path, "guest workload (pmu-workload)"},
			      Need{guest_busybox(o_), "static busybox (install busybox-static)"},
			      Need{o_.kernel.boot_image, "guest kernel"}}) {
		if (n.path.empty() || access(n.path.c_str(), R_OK) != 0)
			return fail(std::string(n.what) + " " +
				    (n.path.empty() ? "not given" : n.path + ": " + strerror(errno)));
	}
	if (o_.kernel.arch && *o_.kernel.arch != o_.arch)
		return fail("the guest kernel " + o_.kernel.release + " is built for " +
			    arch_name(*o_.kernel.arch) + ", not " + arch_name(o_.arch));
	if (o_.timeout_s <= 0 || o_.smp <= 0)
		return fail("invalid VM options (timeout and smp must be positive)");
	return {};
}

Status VmSession::make_dir()
{
	auto d = sys::TempDir::create_in(o_.temp_parent, "stap-pmu-vm.");
	if (!d)
		return d.error();
	tmp_.emplace(std::move(*d));
	dir_ = tmp_->path();
	if (o_.keep_temp)
		tmp_->keep();
	img_ = dir_ + "/initrd.img";
	console_ = dir_ + "/console.log";
	return {};
}

// The image, the control fifos and the serial files (made before QEMU runs so
// that the tails can open them first).
Status VmSession::prepare_initramfs()
{
	t_initramfs_ = now_ms();
	std::string root = dir_ + "/root", list = dir_ + "/initramfs.list";
	Status s = write_root(o_, root, list);
	if (s)
		s = pack(dir_, root, list, img_);
	if (!s)
		return s;
	for (const char *f : {"/control.in", "/control.out"})
		if (mkfifo((dir_ + f).c_str(), 0600) != 0)
			return fail("mkfifo " + dir_ + f + ": " + strerror(errno));
	for (const char *f : {"/console.log", "/stdout.log", "/stderr.log"})
		sys::Fd::open(dir_ + f, O_WRONLY | O_CREAT | O_TRUNC);
	return {};
}

// Starts QEMU in its own process group: a terminal Ctrl-C reaches only us, and
// we stop the guest script cleanly instead of killing the VM.
Status VmSession::boot()
{
	sys::Spawn q;
	q.argv = qemu_argv(o_, img_, dir_);
	if (o_.verbose) {
		std::string cmd;
		for (const auto &a : q.argv)
			cmd += (cmd.empty() ? "" : " ") +
			       (a.find_first_of(" '\"") == std::string::npos ? a : text::shell_quote(a));
		rep_.info("initramfs built in " + std::to_string(now_ms() - t_initramfs_) + " ms: " + img_);
		if (o_.arch == Arch::Arm64)
			rep_.info("arm64 guest with -icount shift=0: the emulated PMUv3 counts exact "
				  "guest instructions (1 instruction = 1 virtual ns)");
		rep_.info("running: " + cmd);
	}
	sys::Fd qlog = sys::Fd::open(dir_ + "/qemu.log", O_WRONLY | O_CREAT | O_TRUNC);
	if (!qlog)
		return fail(std::string("cannot start qemu: ") + strerror(errno));
	q.out = q.err = qlog.get();
	q.new_group = true;
	signals_.emplace(sys::SignalScope::kCatchStop);
	t_boot_ = now_ms();
	auto c = sys::Child::start(q);
	if (!c) {
		Error e = c.error();
		if (e.what.rfind("cannot run", 0) == 0)
			e.hint = o_.arch == Arch::Arm64 ? "install qemu-system-arm" : "install qemu-system-x86";
		return e;
	}
	qemu_.emplace(std::move(*c));
	out_.dest = o_.output_fd;
	err_.dest = o_.error_fd;
	out_.open_file(dir_ + "/stdout.log");
	err_.open_file(dir_ + "/stderr.log");
	return {};
}

bool VmSession::send_stop()
{
	if (!ctl_)
		ctl_ = sys::Fd::open(dir_ + "/control.in", O_WRONLY | O_NONBLOCK);
	return ctl_ && write_all(ctl_.get(), "stop\n", 5);
}

// Copies the guest's output until QEMU ends. An interrupt or the timeout
// sends "stop" to the guest loader; QEMU is killed stop_grace_s later, or
// at a second interrupt.
void VmSession::stream()
{
	long long deadline = t_boot_ + (long long)o_.timeout_s * 1000, kill_at = 0, resend_at = 0;
	int handled_signals = 0;
	for (;;) {
		out_.pump();
		err_.pump();
		if (auto st = qemu_->poll()) {
			qstatus_ = *st;
			break;
		}
		long long now = now_ms();
		if (signals_->caught()) {
			signals_->clear();
			if (++handled_signals == 1) {
				rep_.info("stopping the guest script (interrupt again to kill the VM)");
				send_stop();
				kill_at = now + (long long)o_.stop_grace_s * 1000;
			} else {
				kill_at = now;
			}
		}
		if (!timed_out_ && now >= deadline) {
			timed_out_ = true;
			rep_.error("the VM did not finish within " + std::to_string(o_.timeout_s) +
				   " s; stopping it");
			send_stop();
			kill_at = now + (long long)o_.stop_grace_s * 1000;
		}
		if (kill_at && now >= kill_at && !killed_) {
			killed_ = true;
			qemu_->kill(SIGKILL);
		}
		// A "stop" sent before the guest listens on ttyS3 is lost: repeat it.
		if (kill_at && !killed_ && now >= resend_at) {
			if (resend_at)
				send_stop();
			resend_at = now + 1000;
		}
		sys::sleep_ms(30);
	}
	t_end_ = now_ms();
	out_.flush();
	err_.flush();
	ctl_.reset();
}

// The loader's exit code from the console log, failed by kernel problems, a
// timeout or a broken output; the temp dir goes (its logs stay after a failure).
int VmSession::collect_status()
{
	std::string con = sys::read_file(console_).value_or("");
	auto marker = parse_exit_marker(con);
	size_t problems = report_kernel_problems(con);
	bool keep_logs = false;
	int rc;
	if (!marker) {
		report_no_status();
		rc = 1;
		keep_logs = true;
	} else {
		rc = *marker;
		if (timed_out_) {
			rc = 1;
			keep_logs = true;
		}
		if (problems) {
			rep_.error("the guest kernel reported " + std::to_string(problems) +
				   " problem line(s); console log: " + console_);
			if (rc == 0)
				rc = 1;
			keep_logs = true;
		}
	}
	if (!out_.ok)
		rep_.error(std::string("cannot write the script output: ") + strerror(errno));
	if (o_.verbose && WIFEXITED(qstatus_) && WEXITSTATUS(qstatus_) != 0 && marker) {
		std::string qerr = sys::read_file(dir_ + "/qemu.log", 2000).value_or("");
		if (!qerr.empty())
			rep_.info("qemu: " + first_line(qerr));
	}
	if (keep_logs)
		keep_logs_only();
	tmp_.reset();
	if (o_.keep_temp)
		rep_.info("kept " + dir_);
	return rc;
}

// Prints the kernel's problem lines from the window's start on (with -v also
// those of the boot, and the timings); returns how many there are.
size_t VmSession::report_kernel_problems(const std::string &con)
{
	// Problems while booting and while /init opens the serial ports are the
	// kernel's (or the -cpu model's), not the script's: they are shown with -v;
	// from the window's start on (before any module loads) they fail the run.
	auto init_at = guest_init_time(con);
	auto window = problem_window_start(con, o_.at_boot);
	auto problems = kernel_problems(con, window.value_or(0));
	if (o_.verbose) {
		if (window)
			for (const auto &l : kernel_problems(con))
				if (std::find(problems.begin(), problems.end(), l) == problems.end())
					rep_.info("guest kernel (boot): " + l);
		rep_.info("VM ran " + fmt_secs(t_end_ - t_boot_) + " s" +
			  (init_at ? ", guest /init at " + fmt_secs((long long)(*init_at * 1000)) + " s" : "") +
			  " (total " + fmt_secs(t_end_ - t_start_) + " s); console log: " + console_);
	}
	for (size_t i = 0; i < problems.size() && i < 20; i++)
		rep_.line("stap-pmu: guest kernel: " + problems[i]);
	return problems.size();
}

// No exit marker on the console: why the guest did not report one.
void VmSession::report_no_status() const
{
	std::string qerr = sys::read_file(dir_ + "/qemu.log", 2000).value_or("");
	while (!qerr.empty() && qerr.back() == '\n')
		qerr.pop_back();
	if (killed_ && !timed_out_)
		rep_.error("the VM was killed; console log: " + console_);
	else if (timed_out_)
		rep_.error("the guest did not finish within " + std::to_string(o_.timeout_s) +
			   " s; console log: " + console_);
	else if (WIFEXITED(qstatus_) && WEXITSTATUS(qstatus_) != 0 && !qerr.empty())
		rep_.error("qemu failed: " + first_line(qerr) + " (log: " + dir_ + "/qemu.log)");
	else
		rep_.error("the guest stopped without reporting the loader's exit status; console log: " +
			   console_);
}

// After a failure the logs stay for a look; the image and the fifos go.
void VmSession::keep_logs_only()
{
	if (!tmp_ || tmp_->path().empty())
		return;
	std::error_code ec;
	fs::remove_all(dir_ + "/root", ec);
	for (const char *f : {"/initrd.img", "/initramfs.list", "/initramfs.cpio", "/control.in",
			      "/control.out"})
		fs::remove(dir_ + f, ec);
	tmp_->keep();
}

} // namespace

int run_in_vm(const VmOptions &opts)
{
	return VmSession(opts).run();
}

} // namespace stap_pmu::vm
