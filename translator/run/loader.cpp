// loader.cpp - the pure parts of the loader: status files, module names and
// .modinfo, load-failure messages. The load sequence is loader_run.cpp,
// the procfs files loader_procfs.cpp. libc + libstdc++ only.
#include "translator/run/loader.h"

#include "translator/run/loader_detail.h"
#include "translator/support/sysutil.h"
#include "translator/support/text.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <ctime>
#include <cstring>

namespace stap_pmu::loader {

using text::trim;
using sys::parse_u64;
using detail::read_small;

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

std::string tz_module_params(long gmtoff_east, std::string_view zone)
{
	std::string name;
	for (char ch : zone)
		if (isalnum(static_cast<unsigned char>(ch)) || ch == '+' || ch == '-')
			name += ch;
	return "_stp_tz_gmtoff=" + std::to_string(-gmtoff_east) +
	       " _stp_tz_name=" + (name.empty() ? "UTC" : name);
}

namespace {

struct tm local_now()
{
	time_t now = time(nullptr);
	struct tm tm {};
	localtime_r(&now, &tm);
	return tm;
}

} // namespace

std::string local_tz_module_params()
{
	struct tm tm = local_now();
	return tz_module_params(tm.tm_gmtoff, tm.tm_zone ? tm.tm_zone : "");
}

std::string local_posix_tz()
{
	struct tm tm = local_now();
	std::string name;
	for (const char *p = tm.tm_zone ? tm.tm_zone : ""; *p; p++)
		if (isalnum(static_cast<unsigned char>(*p)) || *p == '+' || *p == '-')
			name += *p;
	// a POSIX zone name is three or more letters; anything else is quoted
	bool letters = name.size() >= 3 && std::all_of(name.begin(), name.end(), [](char ch) {
		return isalpha(static_cast<unsigned char>(ch)) != 0;
	});
	if (!letters)
		name = "<" + (name.empty() ? std::string("UTC") : name) + ">";
	long west = -tm.tm_gmtoff;
	std::string off = west < 0 ? "-" : "";
	long a = west < 0 ? -west : west;
	off += std::to_string(a / 3600);
	if (a % 3600)
		off += ":" + std::string(a % 3600 / 60 < 10 ? "0" : "") + std::to_string(a % 3600 / 60);
	if (a % 60)
		off += ":" + std::string(a % 60 < 10 ? "0" : "") + std::to_string(a % 60);
	return name + off;
}

std::string dropped_warning(const ModuleStatus &st)
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

std::string nested_note(const ModuleStatus &st)
{
	if (!st.nested)
		return "";
	return "stap-pmu: " + std::to_string(st.nested) + " output record" +
	       (st.nested == 1 ? "" : "s") + " through the nested (NMI) rings";
}

std::string pmu_unavailable_warning(const ModuleStatus &st)
{
	if (!st.pmu_unavailable)
		return "";
	std::string w = "WARNING: " + std::to_string(st.pmu_unavailable) + " @pmu read" +
			std::string(st.pmu_unavailable == 1 ? " found no counter on its CPU and was"
						 : "s found no counter on their CPU and were") +
			" 0 (";
	const char *sep = "";
	for (const auto &[cpu, n] : st.pmu_unavailable_cpus) {
		w += sep + ("cpu" + std::to_string(cpu)) + ": " + std::to_string(n);
		sep = ", ";
	}
	return w + "): a CPU came online or went offline during the run; -D STP_PMU_STRICT "
		   "makes such a read an error";
}

std::string pmu_thread_full_warning(const ModuleStatus &st)
{
	if (!st.pmu_thread_full)
		return "";
	return "WARNING: " + std::to_string(st.pmu_thread_full) + " context switch" +
	       (st.pmu_thread_full == 1 ? "" : "es") +
	       " found the @pmu_thread task table full: those tasks' counts were not kept and "
	       "their reads are errors; -D STP_PMU_THREAD_SLOTS=N (a power of 2) makes it larger";
}

// "cpuN pmu_unavailable M" of the status file; false for any other line.
static bool parse_cpu_unavailable(const std::string &key, const std::string &val,
				  ModuleStatus &st)
{
	static const std::string tag = "pmu_unavailable ";
	uint64_t cpu, n;
	if (key.size() < 4 || key.compare(0, 3, "cpu") != 0 || !parse_u64(key.substr(3), cpu) ||
	    cpu > 1u << 20 || val.compare(0, tag.size(), tag) != 0 ||
	    !parse_u64(trim(val.substr(tag.size())), n))
		return false;
	st.pmu_unavailable_cpus.emplace_back((int)cpu, n);
	return true;
}

std::optional<ModuleStatus> parse_status(std::string_view text)
{
	ModuleStatus st;
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
			return first ? std::nullopt : std::optional<ModuleStatus>(st);
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
		if (parse_cpu_unavailable(key, val, st))
			continue;
		uint64_t v;
		if (!parse_u64(val, v))
			continue; // unknown or malformed extra lines are ignored
		if (key == "skipped")
			st.skipped = v;
		else if (key == "dropped")
			st.dropped = v;
		else if (key == "dropped_bytes")
			st.dropped_bytes = v;
		else if (key == "nested")
			st.nested = v;
		else if (key == "bufsize")
			st.bufsize = v;
		else if (key == "error")
			st.errors = v;
		else if (key == "pmu_unavailable")
			st.pmu_unavailable = v;
		else if (key == "pmu_thread_full")
			st.pmu_thread_full = v;
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


} // namespace stap_pmu::loader
