// run_pass.cpp - pass 5: host loader or QEMU guest.
#include "translator/driver/run_pass.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>

#include "translator/run/loader.h"
#include "translator/run/vm.h"
#include "translator/support/file.h"
#include "translator/support/paths.h"

namespace stap_pmu {

namespace {

Result<int> run_in_guest(const RunRequest &req)
{
	const kernel::GuestKernel &guest = *req.guest;
	vm::VmOptions vo;
	vo.module_path = req.ko_path;
	vo.module_name = req.module_name;
	vo.command = req.command;
	vo.kernel = {guest.release, guest.boot_image(), guest.arch, guest.busybox, guest.pseudo_nmi};
	vm::set_arch_defaults(vo, guest.arch.value_or(Arch::X86_64));
	vo.loader_path = guest_program(vo.arch, "stap-pmu-loader");
	vo.workload_path = guest_program(vo.arch, "pmu-workload");
	vo.uprobe_target_path = guest_program(vo.arch, "uprobe-target");
	vo.user_files = req.user_files;
	if (!req.vm_cpu.empty())
		vo.cpu = req.vm_cpu;
	vo.smp = req.vm_smp;
	if (req.vm_mttcg)
		vo.accel = "tcg,thread=multi"; // x86 only: check_run_options
	vo.extra_cmdline = req.vm_append;
	vo.at_boot = req.vm_at_boot;
	vo.after_command = req.vm_after;
	vo.during_command = req.vm_during;
	vo.extra_modules = req.vm_modules;
	vo.timeout_s = req.vm_timeout;
	vo.verbose = req.verbose;
	vo.json_output = req.json;
	vo.keep_temp = req.keep;
	sys::Fd out;
	if (!req.output.empty()) {
		out.reset(open(req.output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
		if (!out)
			return fail("cannot write " + req.output + ": " + std::strerror(errno));
		vo.output_fd = out.get();
	}
	return vm::run_in_vm(vo);
}

Result<int> run_on_host(const RunRequest &req)
{
	loader::LoadOptions lo;
	lo.module_path = req.ko_path;
	lo.module_name = req.module_name;
	lo.target_pid = req.target_pid;
	lo.command = req.command;
	lo.output_file = req.output;
	lo.json = req.json;
	lo.verbose = req.verbose;
	return loader::run_module(lo);
}

} // namespace

RunRequest run_request(const Cli &cli)
{
	RunRequest r;
	r.command = cli.command;
	r.target_pid = cli.target_pid;
	r.output = cli.output;
	r.json = cli.output_format == "json";
	r.verbose = cli.verbose > 0;
	r.keep = cli.keep;
	r.vm_cpu = cli.vm_cpu;
	r.vm_smp = cli.vm_smp;
	r.vm_mttcg = cli.vm_tcg == "multi";
	r.vm_timeout = cli.vm_timeout;
	r.vm_append = cli.vm_append;
	r.vm_at_boot = cli.vm_at_boot;
	r.vm_after = cli.vm_after;
	r.vm_during = cli.vm_during;
	r.vm_modules = cli.vm_modules;
	return r;
}

Result<int> run_pass(const RunRequest &req)
{
	if (req.guest)
		return run_in_guest(req);
	return run_on_host(req);
}

Result<int> attach_or_stop(const Cli &cli)
{
	if (!cli.attach.empty() && !cli.stop.empty())
		return fail("--attach and --stop cannot be used together");
	loader::SessionOptions so;
	so.module_name = cli.attach.empty() ? cli.stop : cli.attach;
	so.output_file = cli.output;
	so.json = cli.output_format == "json";
	so.verbose = cli.verbose > 0;
	return cli.attach.empty() ? loader::stop_module(so) : loader::attach_module(so);
}

} // namespace stap_pmu
