// sign.h - module signing with the kernel tree's scripts/sign-file (--sign-module).
#pragma once

#include <string>

#include "translator/support/result.h"

namespace stap_pmu::sign {

// Runs <tree>/scripts/sign-file sha256 KEY CERT KO (KO is signed in place).
// The error is one line.
Status sign_module(const std::string &tree_dir, const std::string &key, const std::string &cert,
		   const std::string &ko);

} // namespace stap_pmu::sign
