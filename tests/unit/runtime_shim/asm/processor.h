/* asm/processor.h for the runtime_shim: CPUID of a fake CPU */
struct fake_cpu {
	u32 max_leaf, sig;	/* leaf 0 EAX, leaf 1 EAX */
	bool hybrid;		/* leaf 7 EDX[15] */
	u32 core_type;		/* leaf 0x1A EAX[31:24] */
};
static struct fake_cpu fake_cpu;

static void cpuid_count(unsigned int op, int count, u32 *a, u32 *b, u32 *c, u32 *d)
{
	(void)count;
	*a = *b = *c = *d = 0;
	if (op > fake_cpu.max_leaf)
		op = fake_cpu.max_leaf;	/* what Intel CPUs answer past the last leaf */
	switch (op) {
	case 0:
		*a = fake_cpu.max_leaf;
		memcpy(b, "Genu", 4);
		memcpy(d, "ineI", 4);
		memcpy(c, "ntel", 4);
		break;
	case 1:
		*a = fake_cpu.sig;
		break;
	case 7:
		*d = fake_cpu.hybrid ? 1u << 15 : 0;
		break;
	case 0x1a:
		*a = fake_cpu.core_type << 24;
		break;
	default:
		*a = 0x20000000;	/* as if leaf 0x1A said Atom: read only when asked */
		break;
	}
}

static void cpuid(unsigned int op, u32 *a, u32 *b, u32 *c, u32 *d)
{
	cpuid_count(op, 0, a, b, c, d);
}

static u32 cpuid_eax(unsigned int op)
{
	u32 a, b, c, d;

	cpuid(op, &a, &b, &c, &d);
	return a;
}
