// loader.h - loads a stap-pmu module, runs it, and stops it (docs/runtime.md,
// "Load sequence"). Plain C++ on libc/libstdc++ only: this file is also linked
// statically into the guest's stap-pmu-loader.
#pragma once

#include "translator/support/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stap_pmu::loader {

struct LoadOptions {
	std::string module_path;      // the .ko to load
	std::string module_name;      // empty: read "name=" from the .ko's .modinfo (else the file name)
	int target_pid = 0;           // -x PID: value of _stp_target (0: none)
	std::string command;          // -c CMD: plain words are exec'd directly, else /bin/sh -c;
	                              // target() is its pid
	int output_fd = 1;            // where script output goes (ignored when output_file is set)
	std::string output_file;      // -o FILE: created/truncated, mode 0600
	bool json = false;            // --output-format json: one JSON object per record
	bool verbose = false;         // progress messages on stderr
	int poll_ms = 20;             // poll period of output/status
	int stop_timeout_ms = 10000;  // bound for "stop" -> state "stopped"
	int unload_timeout_ms = 5000; // bound for delete_module retries while the module is busy
};

// One parsed /proc/<module>/status file.
struct ModuleStatus {
	std::string state;            // starting, running, exit-requested, stopping, stopped
	int exit_code = 0;
	uint64_t skipped = 0;
	uint64_t dropped = 0;         // output records lost to a full buffer
	uint64_t dropped_bytes = 0;   // their bytes of text
	uint64_t nested = 0;          // records written by NMI bodies that interrupted a body
				      // on their CPU, through its nested ring
	uint64_t bufsize = 0;         // bytes of each CPU's output buffer (0: not reported)
	uint64_t errors = 0;
	// @pmu reads on a CPU without counters (returned 0): total, and per CPU
	// (cpu, count) for the CPUs that had any, in the status file's order
	uint64_t pmu_unavailable = 0;
	std::vector<std::pair<int, uint64_t>> pmu_unavailable_cpus;
	// system-wide @pmu_thread: context switches whose task found no free slot
	uint64_t pmu_thread_full = 0;
};

// "WARNING: N output records dropped ..." for a status with drops, else "".
std::string dropped_warning(const ModuleStatus &st);

// "stap-pmu: N output records through the nested (NMI) rings" (-v), or "" for none.
std::string nested_note(const ModuleStatus &st);

// "WARNING: N @pmu reads found no counter on their CPU ..." naming each CPU and
// its count, for a status with such reads, else "".
std::string pmu_unavailable_warning(const ModuleStatus &st);

// "WARNING: N context switches found the @pmu_thread task table full ..." for a
// status with such switches, else "".
std::string pmu_thread_full_warning(const ModuleStatus &st);

// Words of a command that needs no shell (only [A-Za-z0-9_-./,:+@%^] and blanks);
// empty when it has to run through /bin/sh -c (quotes, $, *, ;, |, >, =, ...).
std::vector<std::string> simple_command_words(std::string_view cmd);

// "_stp_target=<pid>".
std::string module_params(int target_pid);

// "_stp_tz_gmtoff=<seconds west of UTC> _stp_tz_name=<zone>" for a zone
// gmtoff_east seconds east of UTC (struct tm's tm_gmtoff) named zone (its
// letters, digits, '+' and '-'; "UTC" when none are left).
std::string tz_module_params(long gmtoff_east, std::string_view zone);
// The same for the local time zone now (TZ, /etc/localtime).
std::string local_tz_module_params();
// A POSIX TZ value for the local time zone now, without its daylight-saving
// rules ("CET-1", "EST5", "<+0530>-5:30"), for a guest without time zone files.
std::string local_posix_tz();

// Parses a status file; nullopt when the first line is not "<state> <exit_code>".
std::optional<ModuleStatus> parse_status(std::string_view text);

// Module name from a .ko's .modinfo ("name=..."), nullopt when unreadable.
std::optional<std::string> modinfo_name(const std::string &ko_path);

// One "KEY=value" field of a .ko's .modinfo (vermagic, stp_script_hash, ...).
std::optional<std::string> modinfo_field(const std::string &ko_path, std::string_view key);

// True when the .ko ends with the kernel's "~Module signature appended~\n" marker.
bool module_is_signed(const std::string &ko_path);

// Fallback: file name without directories and ".ko", '-' -> '_' (what kbuild does).
std::string module_name_from_path(std::string_view ko_path);

// What the errno of a failed finit_module is interpreted against.
struct LoadEnv {
	bool is_root = true;          // geteuid() == 0
	bool sig_enforce = false;     // /sys/module/module/parameters/sig_enforce == Y
	std::string lockdown;         // active mode from /sys/kernel/security/lockdown ("" unknown)
	bool modules_disabled = false;// /proc/sys/kernel/modules_disabled == 1
	std::string kernel_release;   // uname -r
	// About the module whose load failed (filled by run_module):
	std::vector<std::string> kmsg;// its kernel log lines of the failed load
	std::string module_vermagic;  // its .modinfo vermagic
	bool module_checked = false;  // module_signed is known
	bool module_signed = false;
};
LoadEnv probe_load_env();

// One-line message (without the "stap-pmu: error: " prefix) for a failed finit_module.
std::string load_error_message(int err, std::string_view module, const LoadEnv &env);

// For ENOEXEC: "built for kernel X, this kernel is Y; rebuild with -r Y" from the
// kernel's "version magic 'X ...' should be 'Y ...'" line, or, after "disagrees
// about version of symbol", from the module's vermagic and the running release.
// "" when the log shows no kernel mismatch.
std::string kernel_mismatch_hint(const std::vector<std::string> &kmsg, std::string_view module_vermagic,
				 std::string_view running_release);

// Extracts the message text from one /dev/kmsg record ("pri,seq,ts,flags;text\n...").
std::string kmsg_text(std::string_view record);

// A module that is already loaded (by insmod, the initramfs or another loader).
struct SessionOptions {
	std::string module_name;      // /proc/<module_name>
	int output_fd = 1;
	std::string output_file;      // -o FILE: created/truncated, mode 0600
	bool json = false;            // one JSON object per record
	bool verbose = false;
	int poll_ms = 20;
	int stop_timeout_ms = 10000;
	int unload_timeout_ms = 5000;
};

// --attach NAME: streams the module's output. When the script requests exit the
// module is stopped and unloaded (as run_module does); SIGINT/SIGTERM detach and
// leave it running. Returns the script's exit code, 0 after a detach, 1 after an
// error it printed while the output streamed, or the error that ended it (the
// caller prints it: a missing module, an unreadable status, a failed unload).
Result<int> attach_module(const SessionOptions &opts);

// --stop NAME: writes "stop" (end probes run), copies the remaining output
// including the end probes', reports drops and skips, unloads. Returns the
// script's exit code, 1 after an error it printed while draining, or the error
// that ended it (the caller prints it).
Result<int> stop_module(const SessionOptions &opts);

// Runs the whole load sequence. Returns the script's exit code (from the status
// line), 1 after an error it printed while the module ran, or the error that
// kept it from loading or unloading (the caller prints it).
Result<int> run_module(const LoadOptions &opts);

} // namespace stap_pmu::loader
