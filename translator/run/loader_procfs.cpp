// loader_procfs.cpp - a loaded module's /proc/<module> files: output, status,
// control; stopping and unloading it. libc + libstdc++ only.
#include "translator/run/loader_detail.h"

#include "translator/support/sysutil.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace stap_pmu::loader::detail {

using sys::now_ms;
using sys::sleep_ms;
using sys::write_all;

void say(const std::string &line)
{
	std::string s = line + "\n";
	write_all(STDERR_FILENO, s.data(), s.size());
}

void error(const std::string &msg)
{
	say("stap-pmu: error: " + msg);
}

Result<std::string> read_small(const std::string &path)
{
	sys::Fd fd = sys::Fd::open(path, O_RDONLY);
	if (!fd)
		return fail(strerror(errno));
	std::string s;
	char buf[4096];
	ssize_t r;
	while (s.size() <= 65536 && (r = sys::read_some(fd.get(), buf, sizeof buf)) > 0)
		s.append(buf, (size_t)r);
	return s;
}

Result<sys::Fd> open_output_file(const std::string &path)
{
	sys::Fd fd = sys::Fd::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!fd)
		return fail("cannot create " + path + ": " + strerror(errno));
	return fd;
}

Status open_output(ModuleFiles &m)
{
	m.output = sys::Fd::open(m.dir + (m.json ? "/records" : "/output"), O_RDONLY | O_NONBLOCK);
	if (!m.output)
		return fail_errno(strerror(errno), errno);
	return {};
}

// Text as is; with json the records the data completes, one JSON line each.
static std::string decode(ModuleFiles &m, std::string_view data, Sink &dest)
{
	if (!m.json)
		return std::string(data);
	std::vector<Record> recs;
	if (!m.records.feed(data, recs) && m.records_ok) {
		error("unexpected data in " + m.dir + "/records: " + m.records.error());
		m.records_ok = false;
		dest.ok = false; // nothing more can be decoded
	}
	std::string lines;
	for (const Record &rec : recs)
		lines += record_json(rec) + "\n";
	return lines;
}

void drain_output(ModuleFiles &m, Sink &dest)
{
	if (!m.output)
		return;
	char buf[65536];
	for (int i = 0; i < 4096; i++) { // bounded: at most 256 MiB per call
		ssize_t r = sys::read_some(m.output.get(), buf, sizeof buf);
		if (r <= 0)
			return;
		std::string text = decode(m, std::string_view(buf, (size_t)r), dest);
		if (dest.ok && !text.empty() && !write_all(dest.fd, text.data(), text.size())) {
			error(std::string("cannot write the script output: ") + strerror(errno));
			dest.ok = false;
		}
	}
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

Result<ModuleStatus> read_status(const ModuleFiles &m, std::string_view when)
{
	std::string what = "cannot read " + m.dir + "/status" + std::string(when) + ": ";
	auto text = read_small(m.dir + "/status");
	if (!text)
		return fail(what + text.error().what);
	auto st = parse_status(*text);
	if (!st)
		return fail(what + "unexpected contents");
	return *st;
}

Status write_control(const ModuleFiles &m, const char *cmd)
{
	std::string path = m.dir + "/control";
	sys::Fd fd = sys::Fd::open(path, O_WRONLY);
	if (!fd)
		return fail("cannot open " + path + ": " + strerror(errno));
	if (!write_all(fd.get(), cmd, strlen(cmd)))
		return fail("writing '" + std::string(cmd) + "' to " + path + ": " + strerror(errno));
	return {};
}

std::optional<ModuleStatus> stop_and_drain(ModuleFiles &mf, Sink &out,
					   std::optional<ModuleStatus> st, const std::string &name,
					   int stop_timeout_ms, int poll_ms)
{
	// First make room: the end probes write into the same per-CPU buffers,
	// which a module loaded at boot may have filled while nobody read them.
	drain_output(mf, out);
	bool stopped = st && st->state == "stopped";
	Status ctl;
	if (!stopped && !(ctl = write_control(mf, "stop")))
		error(ctl.error().what);
	long long deadline = now_ms() + stop_timeout_ms;
	while (ctl && !stopped) {
		drain_output(mf, out);
		auto now = read_status(mf, " while stopping");
		if (!now) {
			error(now.error().what);
			break;
		}
		st = *now;
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
	drain_output(mf, out);
	if (!finish_output(mf))
		out.ok = false;
	if (!stopped)
		return std::nullopt;
	if (st->dropped)
		say(dropped_warning(*st));
	if (st->skipped)
		say("WARNING: " + std::to_string(st->skipped) + " probe hits skipped");
	if (st->pmu_unavailable)
		say(pmu_unavailable_warning(*st));
	if (st->pmu_thread_full)
		say(pmu_thread_full_warning(*st));
	return st;
}

Status unload(const std::string &name, int timeout_ms, bool verbose)
{
	long long deadline = now_ms() + timeout_ms;
	for (;;) {
		if (syscall(SYS_delete_module, name.c_str(), O_NONBLOCK) == 0) {
			if (verbose)
				say("stap-pmu: unloaded " + name);
			return {};
		}
		int e = errno;
		if ((e == EAGAIN || e == EWOULDBLOCK || e == EINTR) && now_ms() < deadline) {
			sleep_ms(50);
			continue;
		}
		if (e == EAGAIN || e == EWOULDBLOCK)
			return fail("cannot unload " + name + ": still in use after " +
				    std::to_string(timeout_ms / 1000) + " s (try rmmod " + name + ")");
		return fail("cannot unload " + name + ": " + strerror(e));
	}
}

} // namespace stap_pmu::loader::detail
