// sign.h - module signing with the kernel tree's scripts/sign-file (--sign-module).
#pragma once

#include <string>

namespace stap_pmu::sign {

// Runs <tree>/scripts/sign-file sha256 KEY CERT KO (KO is signed in place).
// Returns false with *err set (one line) on failure.
bool sign_module(const std::string &tree_dir, const std::string &key, const std::string &cert,
		 const std::string &ko, std::string *err);

} // namespace stap_pmu::sign
