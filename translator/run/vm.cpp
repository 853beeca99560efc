// vm.cpp - QEMU TCG guest runner for stap-pmu --vm.
#include "translator/run/vm.h"

#include "translator/support/sysutil.h"
#include "translator/support/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <set>

namespace fs = std::filesystem;

namespace stap_pmu::vm {

namespace {

using sys::now_ms;
using sys::sleep_ms;
using sys::write_all;

volatile sig_atomic_t g_vm_signal = 0;
void on_vm_signal(int sig) { g_vm_signal = sig; }


struct Reporter {
	int fd;
	void line(const std::string &s) const
	{
		std::string l = s + "\n";
		write_all(fd, l.data(), l.size());
	}
	void error(const std::string &s) const { line("stap-pmu: error: " + s); }
	void info(const std::string &s) const { line("stap-pmu: " + s); }
};

std::string base_name(const std::string &p)
{
	size_t s = p.rfind('/');
	return s == std::string::npos ? p : p.substr(s + 1);
}

std::string read_file(const std::string &path, size_t limit = 64u << 20)
{
	std::ifstream f(path, std::ios::binary);
	if (!f)
		return "";
	std::string s(limit, '\0');
	f.read(s.data(), (std::streamsize)limit);
	s.resize((size_t)f.gcount());
	return s;
}

// Incrementally copies what QEMU appended to a serial log file to an fd.
struct Tail {
	int fd = -1;
	int dest = -1;
	bool ok = true;
	void open_file(const std::string &path)
	{
		if (fd < 0)
			fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	}
	void pump()
	{
		if (fd < 0)
			return;
		char buf[65536];
		for (;;) {
			ssize_t r = read(fd, buf, sizeof buf);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return;
			if (ok && !write_all(dest, buf, (size_t)r))
				ok = false;
		}
	}
	~Tail()
	{
		if (fd >= 0)
			close(fd);
	}
};

std::string fmt_secs(long long ms)
{
	char b[32];
	snprintf(b, sizeof b, "%.1f", (double)ms / 1000.0);
	return b;
}

bool build_initramfs(const VmOptions &o, const std::string &dir, const std::string &img,
		     const Reporter &rep)
{
	std::string root = dir + "/root";
	std::error_code ec;
	fs::create_directories(root, ec);
	if (ec) {
		rep.error("cannot create " + root + ": " + ec.message());
		return false;
	}
	std::string list;
	for (const auto &e : initramfs_entries(o)) {
		std::string dst = root + "/" + e.path;
		if (e.is_dir) {
			fs::create_directories(dst, ec);
		} else if (!e.source.empty()) {
			fs::copy_file(e.source, dst, fs::copy_options::overwrite_existing, ec);
		} else {
			std::ofstream f(dst, std::ios::binary | std::ios::trunc);
			f << e.content;
			if (!f)
				ec = std::make_error_code(std::errc::io_error);
		}
		if (ec) {
			rep.error("initramfs: cannot create /" + e.path +
				  (e.source.empty() ? "" : " from " + e.source) + ": " + ec.message());
			return false;
		}
		if (chmod(dst.c_str(), e.mode) != 0) {
			rep.error("initramfs: chmod /" + e.path + ": " + strerror(errno));
			return false;
		}
		list += e.path + "\n";
	}
	std::string list_path = dir + "/initramfs.list", cpio_path = dir + "/initramfs.cpio";
	{
		std::ofstream f(list_path, std::ios::binary | std::ios::trunc);
		f << list;
		if (!f) {
			rep.error("cannot write " + list_path);
			return false;
		}
	}
	int in = open(list_path.c_str(), O_RDONLY | O_CLOEXEC);
	int out = open(cpio_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int err = open((dir + "/cpio.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	std::string why;
	int st = -1;
	if (in >= 0 && out >= 0)
		st = sys::run({"cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"}, in, out,
					 err, root, 60, &why);
	else
		why = std::string("cannot create the cpio archive: ") + strerror(errno);
	for (int fd : {in, out, err})
		if (fd >= 0)
			close(fd);
	if (st != 0) {
		if (why.empty())
			why = "cpio failed: " + read_file(dir + "/cpio.log", 400);
		rep.error("initramfs: " + why + (why.find("cannot run") == 0 ? " (install cpio)" : ""));
		return false;
	}
	in = open(cpio_path.c_str(), O_RDONLY | O_CLOEXEC);
	out = open(img.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	st = -1;
	if (in >= 0 && out >= 0)
		st = sys::run({"gzip", "-1", "-n", "-c"}, in, out, -1, "", 60, &why);
	for (int fd : {in, out})
		if (fd >= 0)
			close(fd);
	if (st != 0) {
		rep.error("initramfs: " + (why.empty() ? std::string("gzip failed") : why));
		return false;
	}
	unlink(cpio_path.c_str());
	return true;
}

// Removes the temp dir, or keeps only the logs (when `logs_only`).
void cleanup(const std::string &dir, bool keep_all, bool keep_logs)
{
	std::error_code ec;
	if (keep_all)
		return;
	if (!keep_logs) {
		fs::remove_all(dir, ec);
		return;
	}
	fs::remove_all(dir + "/root", ec);
	for (const char *f : {"/initrd.img", "/initramfs.list", "/initramfs.cpio", "/control.in",
			      "/control.out"})
		fs::remove(dir + f, ec);
}

} // namespace

// ---- pure parts -------------------------------------------------------------------

std::string shell_quote(std::string_view s)
{
	std::string q = "'";
	for (char c : s) {
		if (c == '\'')
			q += "'\\''";
		else
			q += c;
	}
	return q + "'";
}

std::string guest_module_path(const VmOptions &o)
{
	std::string b = base_name(o.module_path);
	if (b.size() < 4 || b.compare(b.size() - 3, 3, ".ko") != 0)
		b += ".ko";
	return std::string("/") + kGuestDir + "/" + b;
}

std::string init_script(const VmOptions &o)
{
	if (o.at_boot)
		return at_boot_init_script(o);
	std::string loader = "stap-pmu-loader";
	if (o.verbose)
		loader += " -v";
	if (o.json_output)
		loader += " -f json";
	if (!o.command.empty())
		loader += " -c " + shell_quote(o.command);
	loader += " " + shell_quote(guest_module_path(o));

	std::string s;
	s += "#!/bin/busybox sh\n";
	s += "# generated by stap-pmu --vm\n";
	s += "/bin/busybox --install -s /bin\n";
	s += std::string("export PATH=/") + kGuestDir + "/bin:/bin:/sbin\n";
	s += "mount -t proc proc /proc\n";
	s += "mount -t sysfs sysfs /sys\n";
	s += "mount -t devtmpfs devtmpfs /dev 2>/dev/null\n";
	s += "mount -t tmpfs tmpfs /tmp\n";
	s += "mount -t securityfs securityfs /sys/kernel/security 2>/dev/null\n";
	s += "mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null\n";
	GuestPorts gp = guest_ports(o);
	std::string out = std::string("/dev/") + gp.out, err = std::string("/dev/") + gp.err,
		    ctl = std::string("/dev/") + gp.ctl;
	// raw: no \n -> \r\n on the output ports, no echo of the control port
	s += "for t in " + out + " " + err + " " + ctl + "; do stty -F $t raw -echo 2>/dev/null; done\n";
	s += "echo \"stap-pmu guest: init at $(cut -d' ' -f1 /proc/uptime) s\"\n";
	s += "cd /tmp\n";
	for (const std::string &m : o.extra_modules) {
		std::string gm = std::string("/") + kGuestDir + "/extra/" + base_name(m);
		s += "insmod " + shell_quote(gm) + " || echo \"stap-pmu guest: insmod " + base_name(m) +
		     " failed\" >" + err + "\n";
	}
	s += loader + " >" + out + " 2>" + err + " &\n";
	s += "loader=$!\n";
	s += "( while read -r l; do [ \"$l\" = stop ] && kill -INT $loader; done ) <" + ctl + " &\n";
	s += "watcher=$!\n";
	s += "wait $loader\n";
	s += "rc=$?\n";
	s += "kill $watcher 2>/dev/null\n";
	s += std::string("echo \"") + kExitMarker + "$rc\"\n";
	s += "echo \"stap-pmu guest: kernel log follows\"\n";
	s += "dmesg\n";
	s += "poweroff -f\n";
	return s;
}

std::vector<InitramfsEntry> initramfs_entries(const VmOptions &o)
{
	std::string g = kGuestDir;
	std::vector<InitramfsEntry> v;
	for (const char *d : {"bin", "sbin", "proc", "sys", "dev", "tmp", "etc"})
		v.push_back({d, "", "", 0755, true});
	v.push_back({g, "", "", 0755, true});
	v.push_back({g + "/bin", "", "", 0755, true});
	v.push_back({"bin/busybox", o.kernel.busybox.empty() ? o.busybox_path : o.kernel.busybox, "",
		     0755, false});
	v.push_back({g + "/bin/stap-pmu-loader", o.loader_path, "", 0755, false});
	v.push_back({g + "/bin/pmu-workload", o.workload_path, "", 0755, false});
	v.push_back({guest_module_path(o).substr(1), o.module_path, "", 0644, false});
	if (!o.extra_modules.empty())
		v.push_back({g + "/extra", "", "", 0755, true});
	for (const std::string &m : o.extra_modules)
		v.push_back({g + "/extra/" + base_name(m), m, "", 0644, false});
	v.push_back({"init", "", init_script(o), 0755, false});
	return v;
}

std::string kernel_cmdline(const VmOptions &o)
{
	// oops=panic + panic=-1 + -no-reboot: an oops ends the VM at once (it is
	// reported from the console log) instead of leaving a broken guest to time out.
	std::string c = std::string("console=") + guest_ports(o).console +
			" panic=-1 oops=panic loglevel=4";
	// arm64: no KASLR, so that -icount instruction counts of kernel paths
	// (module tree lookups depend on addresses) repeat from boot to boot
	if (o.arch == "arm64")
		c += " nokaslr";
	if (!o.extra_cmdline.empty())
		c += " " + o.extra_cmdline;
	return c;
}

GuestPorts guest_ports(const VmOptions &o)
{
	if (o.arch == "arm64")
		return {"ttyAMA0", "ttyS0", "ttyS1", "ttyS2"};
	return {"ttyS0", "ttyS1", "ttyS2", "ttyS3"};
}

void set_arch_defaults(VmOptions &o, const std::string &arch)
{
	o.arch = arch;
	if (arch == "arm64") {
		o.qemu = "qemu-system-aarch64";
		o.cpu = "cortex-a57";
	} else {
		o.qemu = "qemu-system-x86_64";
		o.cpu = "qemu64";
	}
}

std::vector<std::string> qemu_argv(const VmOptions &o, const std::string &initrd,
				   const std::string &dir)
{
	bool arm64 = o.arch == "arm64";
	std::vector<std::string> a = {o.qemu};
	if (arm64)
		// -icount shift=0: one guest instruction per virtual ns, so the
		// emulated PMUv3 counts exact, repeatable instruction numbers.
		a.insert(a.end(), {"-M", "virt", "-accel", o.accel, "-icount", "shift=0"});
	else
		a.insert(a.end(), {"-accel", o.accel});
	a.insert(a.end(), {"-cpu", o.cpu,
			   "-smp", std::to_string(o.smp),
			   "-m", o.memory,
			   "-nodefaults", "-display", "none", "-monitor", "none",
			   "-no-reboot",
			   "-kernel", o.kernel.boot_image(),
			   "-initrd", initrd,
			   "-append", kernel_cmdline(o),
			   "-serial", "file:" + dir + "/console.log"});
	if (arm64) {
		// virt has one PL011 (the console); the other ports are PCI 16550s.
		a.insert(a.end(), {"-chardev", "file,id=sout,path=" + dir + "/stdout.log",
				   "-device", "pci-serial,chardev=sout",
				   "-chardev", "file,id=serr,path=" + dir + "/stderr.log",
				   "-device", "pci-serial,chardev=serr",
				   "-chardev", "pipe,id=sctl,path=" + dir + "/control",
				   "-device", "pci-serial,chardev=sctl"});
	} else {
		a.insert(a.end(), {"-serial", "file:" + dir + "/stdout.log",
				   "-serial", "file:" + dir + "/stderr.log",
				   "-serial", "pipe:" + dir + "/control"});
	}
	a.insert(a.end(), o.extra_qemu_args.begin(), o.extra_qemu_args.end());
	return a;
}

std::optional<int> parse_exit_marker(std::string_view console)
{
	std::string_view m(kExitMarker);
	std::optional<int> rc;
	size_t pos = 0;
	while ((pos = console.find(m, pos)) != std::string_view::npos) {
		bool line_start = pos == 0 || console[pos - 1] == '\n' || console[pos - 1] == '\r';
		size_t p = pos + m.size();
		pos = p;
		if (!line_start)
			continue;
		int v = 0;
		size_t digits = 0;
		while (p < console.size() && console[p] >= '0' && console[p] <= '9' && digits < 4) {
			v = v * 10 + (console[p] - '0');
			p++;
			digits++;
		}
		if (digits == 0 || (p < console.size() && console[p] != '\r' && console[p] != '\n'))
			continue;
		rc = v; // the last marker wins
	}
	return rc;
}

std::vector<std::string> kernel_problems(std::string_view console, double since_s)
{
	// Splat headers start the message; mitigation notices such as
	// "RETBleed: WARNING: ..." (named -cpu models) do not, and are not problems.
	static const char *const at_start[] = {"WARNING:", "BUG:", "Oops"};
	static const char *const anywhere[] = {"sleeping function called from invalid context",
					       "soft lockup", "hard LOCKUP", "Kernel panic",
					       "kernel BUG at"};
	std::vector<std::string> out;
	std::set<std::string> seen;
	while (!console.empty()) {
		size_t nl = console.find('\n');
		std::string line(console.substr(0, nl));
		console = nl == std::string_view::npos ? std::string_view() : console.substr(nl + 1);
		std::string clean;
		for (char c : line)
			if (c != '\r')
				clean += c;
		// "[   12.345678] text" -> "text"; lines logged before since_s are skipped
		if (!clean.empty() && clean[0] == '[') {
			size_t close = clean.find("] ");
			if (close != std::string::npos && close < 20) {
				char *end = nullptr;
				double t = strtod(clean.c_str() + 1, &end);
				if (end && end != clean.c_str() + 1 && t < since_s)
					continue;
				clean = clean.substr(close + 2);
			}
		}
		bool hit = false;
		for (const char *p : at_start)
			hit |= clean.rfind(p, 0) == 0;
		for (const char *p : anywhere)
			hit |= clean.find(p) != std::string::npos;
		if (hit && seen.insert(clean).second)
			out.push_back(clean);
	}
	return out;
}

std::optional<double> guest_init_time(std::string_view console)
{
	const std::string_view key = "stap-pmu guest: init at ";
	size_t p = console.find(key);
	if (p == std::string_view::npos)
		return std::nullopt;
	std::string num(console.substr(p + key.size(), 16));
	char *end = nullptr;
	double t = strtod(num.c_str(), &end);
	if (end == num.c_str())
		return std::nullopt;
	return t;
}

// ---- the runner ----------------------------------------------------------------------

int run_in_vm(const VmOptions &o)
{
	Reporter rep{o.error_fd};
	long long t_start = now_ms();

	// Inputs first: every missing piece is one clear message.
	struct Need {
		const std::string &path;
		const char *what;
	};
	const std::string &busybox = o.kernel.busybox.empty() ? o.busybox_path : o.kernel.busybox;
	for (const Need &n : {Need{o.module_path, "module"}, Need{o.loader_path, "guest loader (stap-pmu-loader)"},
			      Need{o.workload_path, "guest workload (pmu-workload)"},
			      Need{busybox, "static busybox (install busybox-static)"},
			      Need{o.kernel.boot_image(), "guest kernel"}}) {
		if (n.path.empty() || access(n.path.c_str(), R_OK) != 0) {
			rep.error(std::string(n.what) + " " + (n.path.empty() ? "not given" : n.path + ": " + strerror(errno)));
			return 1;
		}
	}
	if (o.arch != "x86" && o.arch != "arm64") {
		rep.error("--vm supports x86_64 and arm64 guests only (not " + o.arch + ")");
		return 1;
	}
	if (!o.kernel.arch.empty() && o.kernel.arch != o.arch) {
		rep.error("the guest kernel " + o.kernel.release + " is built for " + o.kernel.arch +
			  ", not " + o.arch);
		return 1;
	}
	if (o.timeout_s <= 0 || o.smp <= 0) {
		rep.error("invalid VM options (timeout and smp must be positive)");
		return 1;
	}

	std::string parent = o.temp_parent;
	if (parent.empty()) {
		const char *t = getenv("TMPDIR");
		parent = t && *t ? t : "/tmp";
	}
	std::string tmpl = parent + "/stap-pmu-vm.XXXXXX";
	std::vector<char> tbuf(tmpl.begin(), tmpl.end());
	tbuf.push_back('\0');
	if (!mkdtemp(tbuf.data())) {
		rep.error("cannot create a temp dir in " + parent + ": " + strerror(errno));
		return 1;
	}
	std::string dir = tbuf.data();
	std::string img = dir + "/initrd.img", console = dir + "/console.log";

	long long t0 = now_ms();
	if (!build_initramfs(o, dir, img, rep)) {
		cleanup(dir, o.keep_temp, false);
		return 1;
	}
	for (const char *f : {"/control.in", "/control.out"})
		if (mkfifo((dir + f).c_str(), 0600) != 0) {
			rep.error("mkfifo " + dir + f + ": " + strerror(errno));
			cleanup(dir, o.keep_temp, false);
			return 1;
		}
	// Pre-create the serial files so the tails can open them before QEMU does.
	for (const char *f : {"/console.log", "/stdout.log", "/stderr.log"}) {
		int fd = open((dir + f).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	auto argv = qemu_argv(o, img, dir);
	if (o.verbose) {
		std::string cmd;
		for (const auto &a : argv)
			cmd += (cmd.empty() ? "" : " ") + (a.find_first_of(" '\"") == std::string::npos ? a : shell_quote(a));
		rep.info("initramfs built in " + std::to_string(now_ms() - t0) + " ms: " + img);
		if (o.arch == "arm64")
			rep.info("arm64 guest with -icount shift=0: the emulated PMUv3 counts exact "
				 "guest instructions (1 instruction = 1 virtual ns)");
		rep.info("running: " + cmd);
	}

	// QEMU in its own process group: a terminal Ctrl-C reaches us, and we stop
	// the guest script cleanly instead of killing the VM.
	int qlog = open((dir + "/qemu.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int errp[2];
	if (qlog < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		rep.error(std::string("cannot start qemu: ") + strerror(errno));
		if (qlog >= 0)
			close(qlog);
		cleanup(dir, o.keep_temp, false);
		return 1;
	}
	struct sigaction act = {}, old_int = {}, old_term = {};
	act.sa_handler = on_vm_signal;
	sigemptyset(&act.sa_mask);
	g_vm_signal = 0;
	sigaction(SIGINT, &act, &old_int);
	sigaction(SIGTERM, &act, &old_term);
	auto restore = [&] {
		sigaction(SIGINT, &old_int, nullptr);
		sigaction(SIGTERM, &old_term, nullptr);
	};

	long long t_boot = now_ms();
	pid_t qpid = fork();
	if (qpid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		int devnull = open("/dev/null", O_RDONLY);
		dup2(devnull, 0);
		dup2(qlog, 1);
		dup2(qlog, 2);
		std::vector<char *> a;
		for (auto &s : argv)
			a.push_back(const_cast<char *>(s.c_str()));
		a.push_back(nullptr);
		execvp(a[0], a.data());
		int e = errno;
		(void)!write(errp[1], &e, sizeof e);
		_exit(127);
	}
	close(errp[1]);
	close(qlog);
	if (qpid < 0) {
		close(errp[0]);
		restore();
		rep.error(std::string("fork: ") + strerror(errno));
		cleanup(dir, o.keep_temp, false);
		return 1;
	}
	setpgid(qpid, qpid);
	int exec_errno = 0;
	ssize_t en;
	do
		en = read(errp[0], &exec_errno, sizeof exec_errno);
	while (en < 0 && errno == EINTR);
	close(errp[0]);
	if (en == (ssize_t)sizeof exec_errno) {
		waitpid(qpid, nullptr, 0);
		restore();
		rep.error("cannot run " + o.qemu + ": " + strerror(exec_errno) + (o.arch == "arm64" ? " (install qemu-system-arm)" : " (install qemu-system-x86)"));
		cleanup(dir, o.keep_temp, false);
		return 1;
	}

	Tail out, err;
	out.dest = o.output_fd;
	err.dest = o.error_fd;
	out.open_file(dir + "/stdout.log");
	err.open_file(dir + "/stderr.log");
	int ctl = -1;
	auto send_stop = [&]() {
		if (ctl < 0)
			ctl = open((dir + "/control.in").c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		return ctl >= 0 && write_all(ctl, "stop\n", 5);
	};

	long long deadline = t_boot + (long long)o.timeout_s * 1000, kill_at = 0, resend_at = 0;
	bool timed_out = false, killed = false, stop_sent = false;
	int handled_signals = 0, qstatus = 0;
	for (;;) {
		out.pump();
		err.pump();
		pid_t r = waitpid(qpid, &qstatus, WNOHANG);
		if (r == qpid)
			break;
		long long now = now_ms();
		if (g_vm_signal) {
			g_vm_signal = 0;
			handled_signals++;
			if (handled_signals == 1) {
				rep.info("stopping the guest script (interrupt again to kill the VM)");
				stop_sent = send_stop();
				kill_at = now + (long long)o.stop_grace_s * 1000;
			} else {
				kill_at = now;
			}
		}
		if (!timed_out && now >= deadline) {
			timed_out = true;
			rep.error("the VM did not finish within " + std::to_string(o.timeout_s) +
				  " s; stopping it");
			stop_sent = send_stop();
			kill_at = now + (long long)o.stop_grace_s * 1000;
		}
		if (kill_at && now >= kill_at && !killed) {
			killed = true;
			kill(qpid, SIGKILL);
		}
		// A "stop" sent before the guest listens on ttyS3 is lost: repeat it.
		if (kill_at && !killed && now >= resend_at) {
			if (resend_at)
				stop_sent = send_stop();
			resend_at = now + 1000;
		}
		(void)stop_sent;
		sleep_ms(30);
	}
	long long t_end = now_ms();
	out.pump();
	err.pump();
	if (ctl >= 0)
		close(ctl);

	std::string con = read_file(console);
	auto marker = parse_exit_marker(con);
	// Problems while booting are the kernel's (or the -cpu model's), not the
	// script's: they are shown with -v; from /init on they fail the run.
	auto init_at = guest_init_time(con);
	auto problems = kernel_problems(con, init_at.value_or(0));
	if (o.verbose) {
		if (init_at)
			for (const auto &l : kernel_problems(con))
				if (std::find(problems.begin(), problems.end(), l) == problems.end())
					rep.info("guest kernel (boot): " + l);
		rep.info("VM ran " + fmt_secs(t_end - t_boot) + " s" +
			 (init_at ? ", guest /init at " + fmt_secs((long long)(*init_at * 1000)) + " s" : "") +
			 " (total " + fmt_secs(t_end - t_start) + " s); console log: " + console);
	}
	for (size_t i = 0; i < problems.size() && i < 20; i++)
		rep.line("stap-pmu: guest kernel: " + problems[i]);

	int rc;
	bool keep_logs = false;
	if (!marker) {
		std::string qerr = read_file(dir + "/qemu.log", 2000);
		while (!qerr.empty() && qerr.back() == '\n')
			qerr.pop_back();
		if (killed && !timed_out)
			rep.error("the VM was killed; console log: " + console);
		else if (timed_out)
			rep.error("the guest did not finish within " + std::to_string(o.timeout_s) +
				  " s; console log: " + console);
		else if (WIFEXITED(qstatus) && WEXITSTATUS(qstatus) != 0 && !qerr.empty())
			rep.error("qemu failed: " + qerr.substr(0, qerr.find('\n')) + " (log: " + dir + "/qemu.log)");
		else
			rep.error("the guest stopped without reporting the loader's exit status; console log: " +
				  console);
		rc = 1;
		keep_logs = true;
	} else {
		rc = *marker;
		if (timed_out) {
			rc = 1;
			keep_logs = true;
		}
		if (!problems.empty()) {
			rep.error("the guest kernel reported " + std::to_string(problems.size()) +
				  " problem line(s); console log: " + console);
			if (rc == 0)
				rc = 1;
			keep_logs = true;
		}
	}
	if (!out.ok)
		rep.error(std::string("cannot write the script output: ") + strerror(errno));
	if (o.verbose && WIFEXITED(qstatus) && WEXITSTATUS(qstatus) != 0 && marker) {
		std::string qerr = read_file(dir + "/qemu.log", 2000);
		if (!qerr.empty())
			rep.info("qemu: " + qerr.substr(0, qerr.find('\n')));
	}
	cleanup(dir, o.keep_temp, keep_logs);
	if (o.keep_temp)
		rep.info("kept " + dir);
	restore(); // only now: an interrupt after the VM ended must not skip the cleanup
	return rc;
}

} // namespace stap_pmu::vm
