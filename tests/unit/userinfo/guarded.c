// guarded.c - an SDT marker with a semaphore (for userinfo's unit tests):
// the note records the semaphore's address, which lives in .probes.
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short demo_guarded_semaphore __attribute__((section(".probes")));

void guarded(int n)
{
	if (demo_guarded_semaphore)
		STAP_PROBE1(demo, guarded, n);
}
