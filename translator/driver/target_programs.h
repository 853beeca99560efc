// target_programs.h - what pass 2 and -l/-L know about user-space
// programs in one invocation: the ELF and DWARF facts of process("PATH")
// probe points (userinfo/elf_process_facts.h) for the target's
// architecture, and which files the script's process probes name (what
// --vm makes available in the guest).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "translator/driver/cli.h"
#include "translator/driver/translate_passes.h"
#include "translator/probes/process_facts.h"

namespace stap_pmu {

// The facts for process probes: bare names are looked up in $PATH, then in
// the directory of -c's program when it names one by path, then (--vm) in
// the guest programs' directory (pmu-workload and the test programs).
std::unique_ptr<ProcessFacts> target_process_facts(const Cli &cli);

// Whether a probe point of the script (or of an alias it defines) is a
// process probe: its module depends on the binaries as well as on the
// script, so it is not taken from the module cache.
bool names_process_probes(const Parsed &p);

// Whether the module may hold user binaries' tables besides the process
// probes' (-d FILE, or a target whose program the script's user-stack
// functions name): not taken from the module cache either.
bool names_user_binaries(const Cli &cli, const Parsed &p);

} // namespace stap_pmu
