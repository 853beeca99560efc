// loader_detail.h - the procfs helpers the load sequence (loader_run.cpp)
// shares with --attach / --stop (loader_session.cpp). Internal to the loader
// library; libc/libstdc++ only.
#pragma once

#include "translator/run/loader.h"
#include "translator/run/records.h"
#include "translator/support/file.h"
#include "translator/support/result.h"

#include <optional>
#include <string>
#include <string_view>

namespace stap_pmu::loader::detail {

void say(const std::string &line);        // one line on stderr
void error(const std::string &msg);       // "stap-pmu: error: " + msg

// Small whole-file read for procfs/sysfs files; the error is open's strerror.
Result<std::string> read_small(const std::string &path);

// Where the script output goes; ok turns false once it cannot be written.
struct Sink {
	int fd = 1;
	bool ok = true;
};

// -o FILE: created or truncated, mode 0600 (script output can hold kernel data).
Result<sys::Fd> open_output_file(const std::string &path);

struct ModuleFiles {
	std::string dir;                  // /proc/<module>
	sys::Fd output;                   // O_RDONLY|O_NONBLOCK: dir/output (dir/records with json)
	bool json = false;                // records -> one JSON object per line
	RecordDecoder records;            // json: the stream decoded so far
	bool records_ok = true;           // json: the stream was well-formed
};

// Opens dir/output, or dir/records when m.json. The error is open's strerror;
// Error::code is its errno.
Status open_output(ModuleFiles &m);
// Drains the output into dest (JSON lines with m.json).
void drain_output(ModuleFiles &m, Sink &dest);
// After the last drain: false (with a message) when the records stream ended
// malformed or in the middle of a record.
bool finish_output(const ModuleFiles &m);
// Reads dir/status: "cannot read DIR/status<when>: REASON" when it cannot.
Result<ModuleStatus> read_status(const ModuleFiles &m, std::string_view when = "");
Status write_control(const ModuleFiles &m, const char *cmd);
// Writes "stop" (unless the module stopped already) and drains the output
// until the state is "stopped" or stop_timeout_ms passes. Returns the final
// status when stopped (its drop and skip counts reported), else nothing.
std::optional<ModuleStatus> stop_and_drain(ModuleFiles &mf, Sink &out,
					   std::optional<ModuleStatus> st, const std::string &name,
					   int stop_timeout_ms, int poll_ms);
// delete_module, retried while the module is busy.
Status unload(const std::string &name, int timeout_ms, bool verbose);

} // namespace stap_pmu::loader::detail
