// loader.cpp - the load sequence of docs/runtime.md. libc + libstdc++ only.
#include "translator/run/loader.h"

#include "translator/run/loader_detail.h"
#include "translator/support/sysutil.h"

#include <elf.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace stap_pmu::loader {

namespace detail {

using sys::now_ms;
using sys::sleep_ms;
using sys::write_all;

constexpr const char *kErr = "stap-pmu: error: ";

volatile sig_atomic_t g_signal = 0;

void on_signal(int sig) { g_signal = sig; }

void say(const std::string &line)
{
	std::string s = line + "\n";
	const char *p = s.data();
	size_t n = s.size();
	while (n > 0) {
		ssize_t w = write(STDERR_FILENO, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

void error(const std::string &msg) { say(kErr + msg); }

} // namespace detail

namespace {

using namespace detail;
using sys::now_ms;
using sys::sleep_ms;
using sys::write_all;


// Small whole-file read for procfs/sysfs files; nullopt when it cannot be opened.
std::optional<std::string> read_small(const std::string &path, int *err = nullptr)
{
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (err)
			*err = errno;
		return std::nullopt;
	}
	std::string s;
	char buf[4096];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		s.append(buf, (size_t)r);
		if (s.size() > 65536)
			break;
	}
	close(fd);
	return s;
}

std::string trim(std::string s)
{
	while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t'))
		s.pop_back();
	size_t i = 0;
	while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return s.substr(i);
}

bool parse_u64(std::string_view s, uint64_t &out)
{
	return sys::parse_u64(s, out);
}

// ---- /dev/kmsg ------------------------------------------------------------

int open_kmsg_at_end()
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

// Copies new kernel log records that mention the module to stderr (and to
// *lines when given); returns how many.
int copy_module_kmsg(int fd, const std::string &module, std::vector<std::string> *lines = nullptr)
{
	if (fd < 0)
		return 0;
	int copied = 0;
	char buf[8192];
	for (int i = 0; i < 100000; i++) {
		ssize_t r = read(fd, buf, sizeof buf);
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
		if (lines)
			lines->push_back(text);
		copied++;
	}
	return copied;
}

// ---- the command held on a pipe --------------------------------------------

struct Command {
	pid_t pid = -1;
	int release_fd = -1; // write end; one byte 'g' = run, close without it = do not run
	int exec_err_fd = -1; // read end; the child writes errno here when exec fails
	bool exec_failed = false;
	bool exited = false;
	int wait_status = 0;
};

bool start_command(const std::string &cmd, Command &c)
{
	int p[2], e[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		error(std::string("pipe: ") + strerror(errno));
		return false;
	}
	if (pipe2(e, O_CLOEXEC) < 0) {
		error(std::string("pipe: ") + strerror(errno));
		close(p[0]);
		close(p[1]);
		return false;
	}
	pid_t pid = fork();
	if (pid < 0) {
		error(std::string("fork: ") + strerror(errno));
		for (int fd : {p[0], p[1], e[0], e[1]})
			close(fd);
		return false;
	}
	if (pid == 0) {
		close(p[1]);
		close(e[0]);
		char go = 0;
		ssize_t r;
		do
			r = read(p[0], &go, 1);
		while (r < 0 && errno == EINTR);
		if (r != 1 || go != 'g')
			_exit(0); // the module did not start: never run the command
		close(p[0]);
		// A plain "prog arg..." is executed directly, so that target() is the
		// program itself and no shell start-up syscalls (ash and dash both call
		// getpid) are attributed to it; anything else goes through /bin/sh -c.
		auto words = simple_command_words(cmd);
		if (!words.empty()) {
			std::vector<char *> a;
			for (auto &w : words)
				a.push_back(w.data());
			a.push_back(nullptr);
			execvp(a[0], a.data());
			int en = errno;
			(void)!write(e[1], &en, sizeof en);
			std::string m = std::string(kErr) + "cannot run " + words[0] + ": " + strerror(en) + "\n";
			(void)!write(STDERR_FILENO, m.data(), m.size());
			_exit(en == ENOENT ? 127 : 126);
		}
		execl("/bin/sh", "sh", "-c", cmd.c_str(), (char *)nullptr);
		int en = errno;
		(void)!write(e[1], &en, sizeof en);
		std::string m = std::string(kErr) + "cannot run /bin/sh: " + strerror(en) + "\n";
		(void)!write(STDERR_FILENO, m.data(), m.size());
		_exit(127);
	}
	close(p[0]);
	close(e[1]);
	c.pid = pid;
	c.release_fd = p[1];
	c.exec_err_fd = e[0];
	return true;
}

void release_command(Command &c, bool run)
{
	if (c.release_fd < 0)
		return;
	if (run) {
		char g = 'g';
		ssize_t r;
		do
			r = write(c.release_fd, &g, 1);
		while (r < 0 && errno == EINTR);
	}
	close(c.release_fd);
	c.release_fd = -1;
}

// After the child is gone: did its exec fail? (The pipe is closed by a good exec.)
void check_exec(Command &c)
{
	if (c.exec_err_fd < 0)
		return;
	int en = 0;
	ssize_t r;
	do
		r = read(c.exec_err_fd, &en, sizeof en);
	while (r < 0 && errno == EINTR);
	c.exec_failed = r == (ssize_t)sizeof en;
	close(c.exec_err_fd);
	c.exec_err_fd = -1;
}

bool poll_command(Command &c)
{
	if (c.pid <= 0 || c.exited)
		return c.exited;
	int st;
	pid_t r = waitpid(c.pid, &st, WNOHANG);
	if (r == c.pid) {
		c.exited = true;
		c.wait_status = st;
		check_exec(c);
	}
	return c.exited;
}

// Ends a command that outlived the script: SIGTERM, then SIGKILL after 2 s.
void finish_command(Command &c, bool verbose)
{
	release_command(c, false);
	if (c.pid <= 0 || poll_command(c))
		return;
	if (verbose)
		say("stap-pmu: terminating the command (pid " + std::to_string(c.pid) + ")");
	kill(c.pid, SIGTERM);
	long long deadline = now_ms() + 2000;
	while (now_ms() < deadline) {
		if (poll_command(c))
			return;
		sleep_ms(20);
	}
	kill(c.pid, SIGKILL);
	int st;
	while (waitpid(c.pid, &st, 0) < 0 && errno == EINTR) {
	}
	c.exited = true;
	c.wait_status = st;
	check_exec(c);
}

std::string describe_wait(int st)
{
	if (WIFEXITED(st))
		return "exited with status " + std::to_string(WEXITSTATUS(st));
	if (WIFSIGNALED(st))
		return std::string("was killed by signal ") + strsignal(WTERMSIG(st));
	return "ended";
}

} // namespace

// ---- module procfs files -----------------------------------------------------

namespace detail {

bool open_output(ModuleFiles &m)
{
	m.output = open((m.dir + (m.json ? "/records" : "/output")).c_str(),
			O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return m.output >= 0;
}

// Drains /proc/<mod>/output (or records) into dest. Returns false when dest
// cannot be written.
bool drain_output(ModuleFiles &m, int dest, bool &dest_ok)
{
	if (m.output < 0)
		return true;
	char buf[65536];
	std::vector<Record> recs;
	for (int i = 0; i < 4096; i++) { // bounded: at most 256 MiB per call
		ssize_t r = read(m.output, buf, sizeof buf);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return true;
		}
		if (r == 0)
			return true;
		std::string lines;
		const char *p = buf;
		size_t n = (size_t)r;
		if (m.json) {
			recs.clear();
			if (!m.records.feed(std::string_view(buf, n), recs) && m.records_ok) {
				error("unexpected data in " + m.dir + "/records: " + m.records.error());
				m.records_ok = false;
				dest_ok = false; // nothing more can be decoded
			}
			for (const Record &rec : recs)
				lines += record_json(rec) + "\n";
			p = lines.data();
			n = lines.size();
		}
		if (dest_ok && n && !write_all(dest, p, n)) {
			error(std::string("cannot write the script output: ") + strerror(errno));
			dest_ok = false;
		}
	}
	return true;
}

bool finish_output(const ModuleFiles &m)
{
	if (!m.json || !m.records_ok)
		return m.records_ok;
	if (m.records.pending()) {
		error(m.dir + "/records ended in the middle of a record (" +
		      std::to_string(m.records.pending()) + " bytes)");
		return false;
	}
	return true;
}

std::optional<Status> read_status(const ModuleFiles &m, int &err)
{
	err = 0;
	auto text = read_small(m.dir + "/status", &err);
	if (!text)
		return std::nullopt;
	auto st = parse_status(*text);
	if (!st)
		err = EPROTO;
	return st;
}

bool write_control(const ModuleFiles &m, const char *cmd)
{
	std::string path = m.dir + "/control";
	int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		error("cannot open " + path + ": " + strerror(errno));
		return false;
	}
	bool ok = write_all(fd, cmd, strlen(cmd));
	int e = errno;
	close(fd);
	if (!ok)
		error("writing '" + std::string(cmd) + "' to " + path + ": " + strerror(e));
	return ok;
}

bool unload(const std::string &name, int timeout_ms, bool verbose)
{
	long long deadline = now_ms() + timeout_ms;
	for (;;) {
		if (syscall(SYS_delete_module, name.c_str(), O_NONBLOCK) == 0) {
			if (verbose)
				say("stap-pmu: unloaded " + name);
			return true;
		}
		int e = errno;
		if ((e == EAGAIN || e == EWOULDBLOCK || e == EINTR) && now_ms() < deadline) {
			sleep_ms(50);
			continue;
		}
		if (e == EAGAIN || e == EWOULDBLOCK)
			error("cannot unload " + name + ": still in use after " +
			      std::to_string(timeout_ms / 1000) + " s (try rmmod " + name + ")");
		else
			error("cannot unload " + name + ": " + strerror(e));
		return false;
	}
}

} // namespace detail

using namespace detail;

// ---- pure helpers --------------------------------------------------------------

std::vector<std::string> simple_command_words(std::string_view cmd)
{
	std::vector<std::string> words;
	std::string cur;
	for (char c : cmd) {
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			     strchr("_-./,:+@%^", c) != nullptr;
		if (c == ' ' || c == '\t') {
			if (!cur.empty())
				words.push_back(std::move(cur));
			cur.clear();
		} else if (plain && c != '\0') {
			cur += c;
		} else {
			return {}; // quoting, expansion, redirection, operators: needs a shell
		}
	}
	if (!cur.empty())
		words.push_back(std::move(cur));
	// An assignment prefix or a shell keyword/builtin also needs the shell.
	if (!words.empty() && (words[0].find('=') != std::string::npos ||
			       words[0] == "exec" || words[0] == "cd" || words[0] == "exit"))
		return {};
	return words;
}

std::string module_params(int target_pid)
{
	return "_stp_target=" + std::to_string(target_pid < 0 ? 0 : target_pid);
}

std::string dropped_warning(const Status &st)
{
	if (!st.dropped)
		return "";
	std::string w = "WARNING: " + std::to_string(st.dropped) + " output record" +
			(st.dropped == 1 ? "" : "s") + " dropped (" + std::to_string(st.dropped_bytes) +
			" bytes): a CPU's output buffer";
	if (st.bufsize)
		w += " (" + std::to_string(st.bufsize) + " bytes)";
	return w + " was full; -D STP_BUFSIZE=BYTES makes it larger";
}

std::optional<Status> parse_status(std::string_view text)
{
	Status st;
	bool first = true;
	while (!text.empty()) {
		size_t nl = text.find('\n');
		std::string line = trim(std::string(text.substr(0, nl)));
		text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
		if (line.empty()) {
			if (first)
				return std::nullopt;
			continue;
		}
		size_t sp = line.find(' ');
		if (sp == std::string::npos)
			return first ? std::nullopt : std::optional<Status>(st);
		std::string key = line.substr(0, sp);
		std::string val = trim(line.substr(sp + 1));
		if (first) {
			static const char *const states[] = {"starting", "running", "exit-requested",
							     "stopping", "stopped"};
			bool known = false;
			for (const char *s : states)
				known |= key == s;
			bool neg = !val.empty() && val[0] == '-';
			uint64_t code;
			if (!known || !parse_u64(neg ? val.substr(1) : val, code) || code > 255)
				return std::nullopt;
			st.state = key;
			st.exit_code = neg ? -(int)code : (int)code;
			first = false;
			continue;
		}
		uint64_t v;
		if (!parse_u64(val, v))
			continue; // unknown or malformed extra lines are ignored
		if (key == "skipped")
			st.skipped = v;
		else if (key == "dropped")
			st.dropped = v;
		else if (key == "dropped_bytes")
			st.dropped_bytes = v;
		else if (key == "bufsize")
			st.bufsize = v;
		else if (key == "error")
			st.errors = v;
	}
	if (first)
		return std::nullopt;
	return st;
}

std::string module_name_from_path(std::string_view ko_path)
{
	size_t slash = ko_path.rfind('/');
	std::string base(slash == std::string_view::npos ? ko_path : ko_path.substr(slash + 1));
	if (base.size() > 3 && base.compare(base.size() - 3, 3, ".ko") == 0)
		base.resize(base.size() - 3);
	for (char &c : base)
		if (c == '-')
			c = '_';
	return base;
}

std::optional<std::string> modinfo_name(const std::string &ko_path)
{
	return modinfo_field(ko_path, "name");
}

std::optional<std::string> modinfo_field(const std::string &ko_path, std::string_view key)
{
	int fd = open(ko_path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return std::nullopt;
	struct stat sb;
	std::string img;
	if (fstat(fd, &sb) == 0 && sb.st_size > 0 && sb.st_size < (256 << 20)) {
		img.resize((size_t)sb.st_size);
		size_t got = 0;
		while (got < img.size()) {
			ssize_t r = pread(fd, img.data() + got, img.size() - got, (off_t)got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		img.resize(got);
	}
	close(fd);
	if (img.size() < sizeof(Elf64_Ehdr) || memcmp(img.data(), ELFMAG, SELFMAG) != 0 ||
	    img[EI_CLASS] != ELFCLASS64)
		return std::nullopt;
	Elf64_Ehdr eh;
	memcpy(&eh, img.data(), sizeof eh);
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum ||
	    eh.e_shoff > img.size() || (img.size() - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum)
		return std::nullopt;
	auto shdr = [&](unsigned i) {
		Elf64_Shdr s;
		memcpy(&s, img.data() + eh.e_shoff + (size_t)i * sizeof(Elf64_Shdr), sizeof s);
		return s;
	};
	auto in_file = [&](const Elf64_Shdr &s) {
		return s.sh_offset <= img.size() && s.sh_size <= img.size() - s.sh_offset;
	};
	Elf64_Shdr strs = shdr(eh.e_shstrndx);
	if (!in_file(strs))
		return std::nullopt;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr s = shdr(i);
		if (s.sh_name >= strs.sh_size || !in_file(s))
			continue;
		const char *nm = img.data() + strs.sh_offset + s.sh_name;
		size_t maxlen = strs.sh_size - s.sh_name;
		if (strnlen(nm, maxlen) == maxlen || strcmp(nm, ".modinfo") != 0)
			continue;
		std::string_view info(img.data() + s.sh_offset, s.sh_size);
		while (!info.empty()) {
			size_t z = info.find('\0');
			std::string_view ent = info.substr(0, z);
			if (ent.size() > key.size() + 1 && ent.substr(0, key.size()) == key &&
			    ent[key.size()] == '=')
				return std::string(ent.substr(key.size() + 1));
			if (z == std::string_view::npos)
				break;
			info = info.substr(z + 1);
		}
	}
	return std::nullopt;
}

bool module_is_signed(const std::string &ko_path)
{
	static const char marker[] = "~Module signature appended~\n";
	const size_t n = sizeof(marker) - 1;
	int fd = open(ko_path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat sb;
	char buf[sizeof(marker)] = {};
	bool ok = fstat(fd, &sb) == 0 && sb.st_size >= (off_t)n &&
		  pread(fd, buf, n, sb.st_size - (off_t)n) == (ssize_t)n && memcmp(buf, marker, n) == 0;
	close(fd);
	return ok;
}

namespace {
// First blank-separated word: "6.1.0-57-amd64 SMP preempt ..." -> "6.1.0-57-amd64".
std::string first_word(std::string_view s)
{
	size_t b = s.find_first_not_of(' ');
	if (b == std::string_view::npos)
		return "";
	size_t e = s.find(' ', b);
	return std::string(s.substr(b, e == std::string_view::npos ? e : e - b));
}
} // namespace

std::string kernel_mismatch_hint(const std::vector<std::string> &kmsg, std::string_view module_vermagic,
				 std::string_view running_release)
{
	std::string built, running;
	bool symbols = false;
	for (const std::string &l : kmsg) {
		// "<mod>: version magic '<module's>' should be '<kernel's>'"
		size_t p = l.find("version magic '");
		if (p != std::string::npos) {
			size_t a = p + strlen("version magic '");
			size_t q = l.find("' should be '", a);
			if (q != std::string::npos) {
				built = first_word(std::string_view(l).substr(a, q - a));
				size_t b = q + strlen("' should be '");
				size_t z = l.find('\'', b);
				running = first_word(std::string_view(l).substr(b, z == std::string::npos ? z : z - b));
			}
		}
		if (l.find("disagrees about version of symbol") != std::string::npos)
			symbols = true;
	}
	if (built.empty() && !symbols)
		return "";
	if (built.empty())
		built = first_word(module_vermagic);
	if (running.empty())
		running = std::string(running_release);
	if (built.empty() || running.empty())
		return "";
	if (built == running)
		return "built against a different build of kernel " + built +
		       " (its symbol versions differ from this kernel's); rebuild with -r pointing at "
		       "the build tree of the running kernel";
	return "built for kernel " + built + ", this kernel is " + running + "; rebuild with -r " +
	       running;
}

std::string kmsg_text(std::string_view record)
{
	size_t semi = record.find(';');
	std::string_view t = semi == std::string_view::npos ? record : record.substr(semi + 1);
	size_t nl = t.find('\n');
	if (nl != std::string_view::npos)
		t = t.substr(0, nl);
	return std::string(t);
}

LoadEnv probe_load_env()
{
	LoadEnv env;
	env.is_root = geteuid() == 0;
	if (auto s = read_small("/sys/module/module/parameters/sig_enforce"))
		env.sig_enforce = !s->empty() && ((*s)[0] == 'Y' || (*s)[0] == '1');
	if (auto s = read_small("/sys/kernel/security/lockdown")) {
		size_t a = s->find('['), b = s->find(']');
		if (a != std::string::npos && b != std::string::npos && b > a)
			env.lockdown = s->substr(a + 1, b - a - 1);
	}
	if (auto s = read_small("/proc/sys/kernel/modules_disabled"))
		env.modules_disabled = trim(*s) == "1";
	struct utsname u;
	if (uname(&u) == 0)
		env.kernel_release = u.release;
	return env;
}

std::string load_error_message(int err, std::string_view module, const LoadEnv &env)
{
	std::string m(module);
	switch (err) {
	case EPERM:
		if (!env.is_root)
			return "loading modules needs root (run as root)";
		if (env.modules_disabled)
			return "module loading is disabled on this system (kernel.modules_disabled=1)";
		if (env.sig_enforce)
			return "the kernel requires signed modules (module.sig_enforce=1) and " + m +
			       " is not signed";
		if (!env.lockdown.empty() && env.lockdown != "none")
			return "kernel lockdown (" + env.lockdown + ") forbids loading the unsigned module " + m;
		return "loading " + m + " is not permitted (a security policy rejected it)";
	case EKEYREJECTED:
		if (env.module_checked && !env.module_signed)
			return "the kernel requires signed modules" +
			       std::string(env.sig_enforce ? " (module.sig_enforce=1)" : "") + " and " + m +
			       " is not signed; sign it with --sign-module KEY CERT using a key the kernel "
			       "trusts";
		return "the kernel rejected the signature of module " + m +
		       " (signature enforcement is on and the module is unsigned or signed with an untrusted key)";
	case ENOEXEC: {
		std::string hint = kernel_mismatch_hint(env.kmsg, env.module_vermagic, env.kernel_release);
		if (!hint.empty())
			return "module " + m + " was " + hint;
		return "module " + m + " was built for another kernel or is not a valid module" +
		       (env.kernel_release.empty() ? std::string()
						   : " (running kernel: " + env.kernel_release + ")");
	}
	case EEXIST:
		return "a module named " + m + " is loaded already (unload it with: rmmod " + m + ")";
	case ENOSYS:
		return "this kernel cannot load modules (finit_module: " + std::string(strerror(err)) + ")";
	case EBADMSG:
	case EINVAL:
	default:
		return "loading module " + m + " failed: " + strerror(err);
	}
}

// ---- the load sequence ---------------------------------------------------------

namespace detail {

// Writes "stop" (unless the module stopped already) and drains the output
// until the state is "stopped" or stop_timeout_ms passes. Returns the final
// status when stopped (its drop and skip counts reported), else nothing.
std::optional<Status> stop_and_drain(ModuleFiles &mf, int out, bool &dest_ok,
				     std::optional<Status> st, const std::string &name,
				     int stop_timeout_ms, int poll_ms)
{
	int err = 0;
	bool ctl_ok = true;
	// First make room: the end probes write into the same per-CPU buffers,
	// which a module loaded at boot may have filled while nobody read them.
	drain_output(mf, out, dest_ok);
	if (!st || st->state != "stopped")
		ctl_ok = write_control(mf, "stop");
	long long deadline = now_ms() + stop_timeout_ms;
	bool stopped = st && st->state == "stopped";
	while (ctl_ok && !stopped) {
		drain_output(mf, out, dest_ok);
		st = read_status(mf, err);
		if (!st) {
			error("cannot read " + mf.dir + "/status while stopping: " +
			      (err == EPROTO ? "unexpected contents" : strerror(err)));
			break;
		}
		if (st->state == "stopped") {
			stopped = true;
			break;
		}
		if (now_ms() >= deadline) {
			error("module " + name + " did not stop within " +
			      std::to_string(stop_timeout_ms / 1000) + " s (state " + st->state + ")");
			break;
		}
		sleep_ms(poll_ms);
	}
	drain_output(mf, out, dest_ok);
	if (!finish_output(mf))
		dest_ok = false;
	if (!stopped)
		return std::nullopt;
	if (st->dropped)
		say(dropped_warning(*st));
	if (st->skipped)
		say("WARNING: " + std::to_string(st->skipped) + " probe hits skipped");
	return st;
}

} // namespace detail

int run_module(const LoadOptions &opts)
{
	if (opts.module_path.empty()) {
		error("no module given");
		return 1;
	}
	std::string name = opts.module_name;
	if (name.empty())
		name = modinfo_name(opts.module_path).value_or(module_name_from_path(opts.module_path));

	int ko = open(opts.module_path.c_str(), O_RDONLY | O_CLOEXEC);
	if (ko < 0) {
		error("cannot open " + opts.module_path + ": " + strerror(errno));
		return 1;
	}

	int out = opts.output_fd;
	int out_owned = -1;
	if (!opts.output_file.empty()) {
		/* 0600: script output can hold kernel data */
		out_owned = open(opts.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				 0600);
		if (out_owned < 0) {
			error("cannot create " + opts.output_file + ": " + strerror(errno));
			close(ko);
			return 1;
		}
		out = out_owned;
	}
	auto close_all = [&] {
		if (ko >= 0)
			close(ko);
		if (out_owned >= 0)
			close(out_owned);
		ko = out_owned = -1;
	};

	// A pipe reader that went away must not kill the loader before it unloads.
	struct sigaction ign = {}, old_pipe = {}, act = {}, old_int = {}, old_term = {};
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old_pipe);

	Command cmd;
	int target = opts.target_pid;
	if (!opts.command.empty()) {
		if (!start_command(opts.command, cmd)) {
			sigaction(SIGPIPE, &old_pipe, nullptr);
			close_all();
			return 1;
		}
		target = cmd.pid;
	}

	g_signal = 0;
	act.sa_handler = on_signal; // no SA_RESTART: a signal ends the 20 ms nap
	sigemptyset(&act.sa_mask);
	sigaction(SIGINT, &act, &old_int);
	sigaction(SIGTERM, &act, &old_term);
	auto restore_signals = [&] {
		sigaction(SIGINT, &old_int, nullptr);
		sigaction(SIGTERM, &old_term, nullptr);
		sigaction(SIGPIPE, &old_pipe, nullptr);
	};

	// 2. finit_module, with the module's kernel log lines on failure.
	std::string params = module_params(target);
	if (opts.verbose)
		say("stap-pmu: loading " + opts.module_path + " as " + name + " (" + params + ")");
	int kmsg = open_kmsg_at_end();
	long long t0 = now_ms();
	if (syscall(SYS_finit_module, ko, params.c_str(), 0) != 0) {
		int e = errno;
		LoadEnv env = probe_load_env();
		copy_module_kmsg(kmsg, name, &env.kmsg);
		env.module_vermagic = modinfo_field(opts.module_path, "vermagic").value_or("");
		env.module_signed = module_is_signed(opts.module_path);
		env.module_checked = true;
		error(load_error_message(e, name, env));
		if (kmsg >= 0)
			close(kmsg);
		finish_command(cmd, false);
		restore_signals();
		close_all();
		return 1;
	}
	if (opts.verbose) // the module's init lines: the PMU row each CPU selected
		copy_module_kmsg(kmsg, name);
	if (kmsg >= 0)
		close(kmsg);
	close(ko);
	ko = -1;
	if (opts.verbose)
		say("stap-pmu: loaded " + name + " in " + std::to_string(now_ms() - t0) + " ms");

	ModuleFiles mf;
	mf.dir = "/proc/" + name;
	mf.json = opts.json;
	open_output(mf);
	int rc = 1;
	bool failed = false, dest_ok = true;
	int err = 0;
	std::optional<Status> st;

	if (mf.output < 0) {
		error("module " + name + " has no " + mf.dir + (mf.json ? "/records (" : "/output (") +
		      strerror(errno) + "); is it a stap-pmu module?");
		failed = true;
	} else {
		// Wait (bounded) for the module to leave "starting", then release the command.
		long long deadline = now_ms() + opts.stop_timeout_ms;
		for (;;) {
			drain_output(mf, out, dest_ok);
			st = read_status(mf, err);
			if (!st) {
				error("cannot read " + mf.dir + "/status: " +
				      (err == EPROTO ? "unexpected contents" : strerror(err)));
				failed = true;
				break;
			}
			if (st->state != "starting" || g_signal)
				break;
			if (now_ms() >= deadline) {
				error("module " + name + " still in state starting after " +
				      std::to_string(opts.stop_timeout_ms / 1000) + " s");
				failed = true;
				break;
			}
			sleep_ms(opts.poll_ms);
		}
	}
	bool run_cmd = !failed && st && st->state == "running" && !g_signal;
	release_command(cmd, run_cmd);
	if (opts.verbose && cmd.pid > 0)
		say(std::string("stap-pmu: ") + (run_cmd ? "started" : "did not start") +
		    " the command (pid " + std::to_string(cmd.pid) + ")");

	// 3. poll output and status.
	std::string reason;
	while (!failed) {
		drain_output(mf, out, dest_ok);
		st = read_status(mf, err);
		if (!st) {
			error("cannot read " + mf.dir + "/status: " +
			      (err == EPROTO ? "unexpected contents" : strerror(err)));
			failed = true;
			break;
		}
		if (st->state == "exit-requested" || st->state == "stopping" || st->state == "stopped") {
			reason = "the script requested exit";
			break;
		}
		if (g_signal) {
			reason = std::string("signal ") + strsignal(g_signal);
			break;
		}
		if (cmd.pid > 0 && poll_command(cmd)) {
			reason = "the command " + describe_wait(cmd.wait_status);
			break;
		}
		if (!dest_ok) {
			reason = "the output cannot be written";
			break;
		}
		sleep_ms(opts.poll_ms);
	}

	// 4. stop, drain until stopped, unload.
	if (mf.output >= 0) {
		if (opts.verbose && !reason.empty())
			say("stap-pmu: stopping: " + reason);
		std::optional<Status> fin = stop_and_drain(mf, out, dest_ok, st, name,
							   opts.stop_timeout_ms, opts.poll_ms);
		if (fin)
			rc = fin->exit_code;
		else
			failed = true;
		close(mf.output);
		mf.output = -1;
	}
	finish_command(cmd, opts.verbose);
	if (opts.verbose && cmd.pid > 0 && cmd.exited)
		say("stap-pmu: the command " + describe_wait(cmd.wait_status));
	if (!unload(name, opts.unload_timeout_ms, opts.verbose))
		failed = true;
	restore_signals();
	close_all();
	if (cmd.exec_failed)
		failed = true; // "cannot run ..." was printed by the child
	if (cmd.exec_err_fd >= 0)
		close(cmd.exec_err_fd);
	if (failed || !dest_ok || rc < 0 || rc > 255)
		return 1;
	return rc;
}

} // namespace stap_pmu::loader
