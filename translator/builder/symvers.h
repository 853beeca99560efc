// symvers.h - the lines of the kernel's Module.symvers that one module needs.
//
// modpost reads the kernel's whole Module.symvers (1.7 MB, about 25,000
// exports on 6.1: some 40 ms) to give a module's few dozen imports their
// versions and namespaces. Given only the lines of the symbols the
// module's object leaves undefined it writes the same NAME.mod.c and
// reports the same undefined symbols, so the kbuild replay runs it on
// those lines (kbuild.cpp, docs/performance.md).
#pragma once

#include <string>
#include <vector>

#include "translator/support/result.h"

namespace stap_pmu::symvers {

// The names of the global and weak symbols a 64-bit little-endian ELF
// object (x86-64, arm64) leaves undefined.
Result<std::vector<std::string>> undefined_symbols(const std::string &object);

// The lines of symvers_text (CRC, symbol, module, export, namespace: tab
// separated) whose symbol is one of names, or module_layout (the import
// modversions adds to every module on kernels that have it).
std::string select(const std::string &symvers_text, const std::vector<std::string> &names);

} // namespace stap_pmu::symvers
