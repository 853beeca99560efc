// SPDX-License-Identifier: GPL-2.0
/* bench_kprobe - reference module for the probe-cost benchmark: one kprobe
 * with an empty pre-handler on `sym`+`offset`. Offset 0 is an ftrace-based
 * probe on x86; a non-zero offset on an instruction boundary is an int3
 * probe that the kprobe optimizer turns into a jump. */
#include <linux/kprobes.h>
#include <linux/module.h>

static char *sym = "__x64_sys_getpid";
module_param(sym, charp, 0444);
static uint offset;
module_param(offset, uint, 0444);

static int bench_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static struct kprobe bench_kp = { .pre_handler = bench_pre };

static int __init bench_init(void)
{
	int ret;

	bench_kp.symbol_name = sym;
	bench_kp.offset = offset;
	ret = register_kprobe(&bench_kp);
	if (ret)
		pr_err("bench_kprobe: register_kprobe(%s+%u) = %d\n", sym, offset, ret);
	return ret;
}

static void __exit bench_exit(void)
{
	unregister_kprobe(&bench_kp);
	pr_info("bench_kprobe: %s+%u nmissed=%lu\n", sym, offset, bench_kp.nmissed);
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stap-pmu benchmark: empty kprobe");
