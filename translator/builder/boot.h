// boot.h - boot-time probing: a module loaded by the initramfs, with no
// stap-pmu or loader process (stap-pmu --initramfs IMAGE; docs/deploy.md).
#pragma once

#include <string>

#include "translator/support/result.h"

namespace stap_pmu::boot {

constexpr const char *kBootDir = "stap-pmu";        // /stap-pmu in the image
constexpr const char *kBootInit = "/stap-pmu/init"; // boot with rdinit=/stap-pmu/init

// The wrapper init: insmod /stap-pmu/<module>.ko, then exec the image's own /init.
std::string boot_init_script(const std::string &module);

// Appends a gzip-compressed newc cpio holding /stap-pmu/<module>.ko and the
// wrapper init to an existing initramfs image (the kernel unpacks concatenated
// archives in order).
Status append_to_initramfs(const std::string &image, const std::string &ko,
			   const std::string &module);

} // namespace stap_pmu::boot
