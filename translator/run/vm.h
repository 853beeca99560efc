// vm.h - runs a module in a throwaway QEMU TCG guest (stap-pmu --vm).
//
// The guest boots the installed Debian kernel with an initramfs holding static
// busybox, stap-pmu-loader, pmu-workload, the module and a generated /init.
// Serial ports:
//   ttyS0  kernel console + /init messages + exit marker + final dmesg -> console.log
//   ttyS1  loader stdout (script output)     -> streamed to VmOptions::output_fd
//   ttyS2  loader stderr (load errors, -v)    -> streamed to VmOptions::error_fd
//   ttyS3  host -> guest control: a line "stop" sends SIGINT to the loader
//          (host Ctrl-C/SIGTERM and the timeout use it before killing QEMU)
// /init opens ttyS1-3 once, one after the other (fds 3-5), then logs
// kWindowMarker: kernel problems from then on fail the run, those of the boot
// and of the ports' start-up (a kernel flavour's 8250 driver) do not.
// arm64 (qemu-system-aarch64 -M virt, Arch::Arm64): the console is the PL011
// ttyAMA0 and the three other ports are PCI 16550s (pci-serial), ttyS0..ttyS2
// in the guest; -icount shift=0 makes the emulated PMUv3 count exact
// instructions (one instruction per virtual ns).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "translator/support/arch.h"
#include "translator/support/result.h"

namespace stap_pmu::vm {

// The guest kernel to boot, filled by the driver (from kernelinfo's
// find_guest_kernel / find_foreign_kernel): run/ itself knows no kernel trees.
struct GuestImage {
	std::string release;    // e.g. "6.1.0-57-amd64"
	std::string boot_image; // what QEMU boots (-kernel): the PVH vmlinux, else the vmlinuz
	std::optional<Arch> arch; // the architecture it is built for (nullopt : not known)
	std::string busybox;    // static busybox for the guest ("" : VmOptions::busybox_path)
	// arm64 kernel with CONFIG_ARM64_PSEUDO_NMI: -M virt,gic-version=3 and
	// irqchip.gicv3_pseudo_nmi=1, so the PMU overflow interrupt is an NMI
	bool pseudo_nmi = false;
};

struct VmOptions {
	std::string module_path;          // .ko built for kernel.release
	std::string module_name;          // informational; the guest loader reads .modinfo
	std::string command;              // -c CMD inside the guest ("" : run until exit()/stop)
	std::vector<std::string> extra_modules; // .ko files insmod-ed in order before the script's
	GuestImage kernel;                // the guest kernel to boot
	std::string loader_path;          // static stap-pmu-loader
	std::string workload_path;        // static pmu-workload
	std::string uprobe_target_path;   // uprobe-target ("" or missing: not shipped)
	// Absolute host paths of the ELF files the script's process probes name:
	// each is in the guest at the same path, with its interpreter and
	// libraries (vm_files.h); a guest program among them (pmu-workload,
	// uprobe-target) is that same file in /stap-pmu/bin (uprobes attach to
	// inodes).
	std::vector<std::string> user_files;
	std::string busybox_path = "/bin/busybox"; // static busybox (busybox-static)
	std::string qemu = "qemu-system-x86_64";
	// -accel. Single-threaded TCG: with multi-threaded TCG (QEMU 7.2), unregistering
	// an ftrace-based kprobe while another vCPU runs the probed function crashed the
	// 6.1 guest (RIP 0 in do_syscall_64) in 8 of 14 runs; 0 of 8 with thread=single,
	// at the same speed (a plain kprobe module does the same: docs/testing.md, "True
	// concurrency"). --vm-tcg multi sets "tcg,thread=multi" for scripts that unregister
	// nothing while the probed code runs. KVM cannot run stock kernels on the build hosts.
	std::string accel = "tcg,thread=single";
	Arch arch = Arch::X86_64;         // the guest's
	std::string cpu = "qemu64";       // -cpu MODEL
	int smp = 2;
	std::string memory = "1G";
	std::string extra_cmdline;        // appended to the kernel command line
	// --vm-at-boot: /init insmods the module before anything else, runs the
	// command with no loader process, then "stap-pmu-loader -S" stops the
	// module and delivers its output (end probes' included).
	bool at_boot = false;
	// --vm-after: a shell command /init runs once the script has ended and
	// its module is unloaded, its output after the script's ("" : none), e.g.
	// a check that a probed program runs clean again (no "[uprobes]" area)
	std::string after_command;
	// --vm-during: a shell command /init starts in the background once the
	// module is live (not a target: target() stays 0), its output on the
	// error port; stopped when the loader exits ("" : none)
	std::string during_command;
	std::vector<std::string> extra_qemu_args;
	int timeout_s = 300;              // whole VM run, boot included
	int stop_grace_s = 15;            // after "stop" is sent, before QEMU is killed
	bool json_output = false;         // --output-format json: the guest loader's -f json
	int output_fd = 1;                // script output
	int error_fd = 2;                 // loader errors, warnings, our messages
	bool verbose = false;             // also passes -v to the guest loader
	bool keep_temp = false;           // keep the temp dir (initramfs, logs)
	std::string temp_parent;          // "" : $TMPDIR or /tmp
};

// Boots the guest, streams the script output, returns the loader's exit code;
// 1 (with a one-line message) on any VM error, kernel warnings included.
int run_in_vm(const VmOptions &opts);

// ---- pure parts (unit-tested) ----

struct InitramfsEntry {
	std::string path;     // inside the image, no leading '/': "bin/busybox"
	std::string source;   // host file to copy ("" : directory, or `content`)
	std::string content;  // literal file content when source is "" and !is_dir
	unsigned mode = 0755;
	bool is_dir = false;
	std::string link;     // a symbolic link to this target (source, content unused)
};

constexpr const char *kGuestDir = "stap-pmu";            // /stap-pmu in the guest
constexpr const char *kExitMarker = "STAP-PMU-EXIT: ";   // + loader exit code, on ttyS0
// Written to the kernel log by /init once the serial ports are open, before any
// module loads: kernel problems logged before it are not the module's.
constexpr const char *kWindowMarker = "stap-pmu guest: ports open";
constexpr const char *kRunInitMessage = "Run /init as init process"; // the kernel's

std::string guest_module_path(const VmOptions &opts);    // "/stap-pmu/<file>.ko"
std::string init_script(const VmOptions &opts);          // the generated /init
std::string at_boot_init_script(const VmOptions &opts);  // /init of --vm-at-boot (vm_boot.cpp)
// The /init lines both scripts share: busybox, mounts, the serial ports opened
// once on fds 3 (out), 4 (err), 5 (control), the window marker and the start
// time before the work; exit marker, a kmemleak scan where the kernel has
// kmemleak, kernel log and power-off after it.
std::string init_setup_lines(const VmOptions &opts);
std::string init_exit_lines();
// Shell lines: where /sys/kernel/debug/kmemleak exists, wait past its minimum
// object age, scan, and print the suspected leaks on the console.
std::string kmemleak_lines();
// The --vm-after command's line ("" : none), after the module is gone.
std::string after_lines(const VmOptions &opts);
std::string during_lines(const VmOptions &opts);  // --vm-during's background command
std::string base_name(const std::string &path);          // "/a/b.ko" -> "b.ko"
const std::string &guest_busybox(const VmOptions &opts); // kernel.busybox, else busybox_path
std::vector<InitramfsEntry> initramfs_entries(const VmOptions &opts);
// initramfs_entries and the user files' entries (vm_files.h), each path once;
// reads the host's files. Error: a user file or a library it needs is missing.
Result<std::vector<InitramfsEntry>> guest_entries(const VmOptions &opts);
// The user file that is the same host file as `program` ("" : none).
std::string user_copy_of(const VmOptions &opts, const std::string &program);
std::string kernel_cmdline(const VmOptions &opts);
// Guest device names of the loader's stdout, stderr and the control port.
struct GuestPorts {
	const char *console, *out, *err, *ctl;
};
GuestPorts guest_ports(const VmOptions &opts);
// Defaults for an arch: qemu binary, -cpu model.
void set_arch_defaults(VmOptions &opts, Arch arch);
std::vector<std::string> qemu_argv(const VmOptions &opts, const std::string &initrd,
				   const std::string &dir); // dir holds the serial files
std::optional<int> parse_exit_marker(std::string_view console);
// The guest's stdout and stderr reach the host as two serial files that
// QEMU fills a few bytes at a time; the host copies each to its own fd.
// Copying whole lines only keeps a line of one from being cut by a line of
// the other where both go to one terminal or file (2>&1). data is appended
// to pending; returned is pending up to and including its last newline,
// or all of it once it holds limit bytes without one.
std::string take_whole_lines(std::string &pending, std::string_view data, size_t limit = 65536);
// Lines of the console log that report kernel problems (deduplicated, \r and
// "[ time]" prefixes removed): messages starting with WARNING:, BUG: or Oops
// (lockdep, KASAN, might_sleep and most others), and any with "sleeping function
// called from invalid context", "soft lockup", "hard LOCKUP", "Kernel panic",
// "kernel BUG at", kmemleak's "new suspected memory leak(s)" and "unreferenced
// object 0x", the hung-task "blocked for more than", "list_add corruption",
// "list_del corruption", "ODEBUG: ", "trying to register non-static key"
// (on any kernel; the debugging one prints them). Lines time-stamped before
// since_s (guest uptime) are ignored. Mitigation notices such as
// "RETBleed: WARNING: ..." are not problems.
std::vector<std::string> kernel_problems(std::string_view console, double since_s = 0);
// Guest uptime when /init started ("stap-pmu guest: init at X s" on the console;
// /proc/uptime's 10 ms resolution).
std::optional<double> guest_init_time(std::string_view console);
// The time stamp of the first kernel-log line "[ T] MESSAGE..." (the final
// dmesg copy has every line, whatever its level).
std::optional<double> kernel_log_time(std::string_view console, std::string_view message);
// The guest uptime from which every kernel problem fails the run (before it:
// the boot, and the serial ports' start-up, whatever a kernel flavour's 8250
// driver logs then): kWindowMarker, written once the ports are open and before
// any module loads (else the init time); with --vm-at-boot, whose /init loads
// the module before anything else, the start of /init (kRunInitMessage).
std::optional<double> problem_window_start(std::string_view console, bool at_boot);

} // namespace stap_pmu::vm
