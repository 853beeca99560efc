// host_cpu.cpp - this machine's CPUID vendor, family, model and stepping.
#include "pmu/pmu.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <cstring>
#endif

namespace stap_pmu::pmu {

CpuId Resolver::host_cpu()
{
	CpuId cpu;
#if defined(__x86_64__) || defined(__i386__)
	unsigned a = 0, b = 0, c = 0, d = 0;
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return cpu;
	char vendor[13] = {};
	std::memcpy(vendor, &b, 4);
	std::memcpy(vendor + 4, &d, 4);
	std::memcpy(vendor + 8, &c, 4);
	cpu.vendor = vendor;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return cpu;
	// Same derivation as the kernel's x86_family()/x86_model(), which is
	// what the module's match table is compared with at load time.
	unsigned family = (a >> 8) & 0xf;
	unsigned model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family >= 6)
		model += ((a >> 16) & 0xf) << 4;
	cpu.family = family;
	cpu.model = model;
	cpu.stepping = a & 0xf;

	// hybrid (CPUID.(EAX=7,ECX=0):EDX[15]): the core type of this CPU
	unsigned max_leaf = __get_cpuid_max(0, nullptr);
	if (max_leaf >= 0x1a && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d & (1u << 15)) &&
	    __get_cpuid_count(0x1a, 0, &a, &b, &c, &d))
		cpu.core_type = a >> 24;
#endif
	return cpu;
}

} // namespace stap_pmu::pmu
