// sysutil.h - small POSIX helpers shared by the loader and the VM runner.
// libc only: the loader links statically into the guest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stap_pmu::sys {

// read(2), retried on EINTR.
long read_some(int fd, void *buf, size_t n);
// Writes all n bytes, retrying on EINTR; false on any other error.
bool write_all(int fd, const char *p, size_t n);
// Decimal digits only (no sign, no spaces), fitting 64 bits; false otherwise.
bool parse_u64(std::string_view s, uint64_t &out);
// CLOCK_MONOTONIC in milliseconds.
long long now_ms();
// Sleeps ms milliseconds; a signal ends the nap early.
void sleep_ms(int ms);

} // namespace stap_pmu::sys
