// loader_detail.h - the procfs helpers loader.cpp shares with loader_session.cpp
// (--attach, --stop). Internal to the loader library; libc/libstdc++ only.
#pragma once

#include "translator/loader.h"

#include <optional>
#include <string>

namespace stap_pmu::loader::detail {

void say(const std::string &line);        // one line on stderr
void error(const std::string &msg);       // "stap-pmu: error: " + msg

struct ModuleFiles {
	std::string dir;                  // /proc/<module>
	int output = -1;                  // O_RDONLY|O_NONBLOCK fd of dir/output
};

// Drains dir/output into dest; dest_ok turns false when dest cannot be written.
bool drain_output(const ModuleFiles &m, int dest, bool &dest_ok);
// Reads dir/status; nullopt with err set (EPROTO: unexpected contents).
std::optional<Status> read_status(const ModuleFiles &m, int &err);
bool write_control(const ModuleFiles &m, const char *cmd);
std::optional<Status> stop_and_drain(const ModuleFiles &mf, int out, bool &dest_ok,
				     std::optional<Status> st, const std::string &name,
				     int stop_timeout_ms, int poll_ms);
// delete_module, retried while the module is busy.
bool unload(const std::string &name, int timeout_ms, bool verbose);

} // namespace stap_pmu::loader::detail
