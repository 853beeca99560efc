// loader_detail.h - the procfs helpers loader.cpp shares with loader_session.cpp
// (--attach, --stop). Internal to the loader library; libc/libstdc++ only.
#pragma once

#include "translator/run/loader.h"
#include "translator/run/records.h"

#include <optional>
#include <string>

namespace stap_pmu::loader::detail {

void say(const std::string &line);        // one line on stderr
void error(const std::string &msg);       // "stap-pmu: error: " + msg

struct ModuleFiles {
	std::string dir;                  // /proc/<module>
	int output = -1;                  // O_RDONLY|O_NONBLOCK fd of dir/output (dir/records with json)
	bool json = false;                // records -> one JSON object per line
	RecordDecoder records;            // json: the stream decoded so far
	bool records_ok = true;           // json: the stream was well-formed
};

// Opens dir/output, or dir/records when m.json; false with errno set.
bool open_output(ModuleFiles &m);
// Drains the output into dest (JSON lines with m.json); dest_ok turns false
// when dest cannot be written.
bool drain_output(ModuleFiles &m, int dest, bool &dest_ok);
// After the last drain: false (with a message) when the records stream ended
// malformed or in the middle of a record.
bool finish_output(const ModuleFiles &m);
// Reads dir/status; nullopt with err set (EPROTO: unexpected contents).
std::optional<Status> read_status(const ModuleFiles &m, int &err);
bool write_control(const ModuleFiles &m, const char *cmd);
std::optional<Status> stop_and_drain(ModuleFiles &mf, int out, bool &dest_ok,
				     std::optional<Status> st, const std::string &name,
				     int stop_timeout_ms, int poll_ms);
// delete_module, retried while the module is busy.
bool unload(const std::string &name, int timeout_ms, bool verbose);

} // namespace stap_pmu::loader::detail
