// target_kernel.h - what passes 1 and 2 know about the target kernel: the
// preprocessor's %( kernel_v %) facts and the tapset directories, and where
// kernel.function / module().function / kernel.trace find their DWARF.
#pragma once

#include "translator/driver/cli.h"
#include "translator/driver/translate_passes.h"
#include "translator/probes/kernel_facts.h"

#include <memory>

namespace stap_pmu {

// Defaults describing the running host (uname), no CONFIG_ values.
PreprocInput host_preproc_input();

// Facts of a kernel build tree: release "6.1.0-57-amd64" (kernel_vr; kernel_v
// is the part before '-'), its architecture, and the CONFIG_ values of
// DIR/include/config/auto.conf (or DIR/.config).
PreprocInput preproc_input_from_tree(const std::string &dir, const std::string &release, Arch arch);

// Pass 1's options: the facts of the tree pass 4 will build against (the
// guest's with --vm; the host's uname when there is none), -g, -D and -I.
ParseOptions parse_options(const Cli &cli);

// Pass 2's input about the target kernel (probes/kernel_facts.h): its
// functions, types and tracepoints from DWARF, its modules, and the builder
// of tracepoint query modules.
std::unique_ptr<KernelFacts> target_kernel_facts(const Cli &cli, const ParseOptions &po);

} // namespace stap_pmu
