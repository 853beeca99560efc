// builtins.cpp - the builtin function table.
#include "translator/sema/builtins.h"

namespace stap_pmu {

namespace {

// the first builtins: process, time, strings, kernel memory, backtraces
std::vector<Builtin> core_builtins()
{
	using T = Type;
	return {
		{"cpu", T::Long, {}, "stp_cpu()", "number of the current CPU"},
		{"pid", T::Long, {}, "stp_pid()", "process id of the current task"},
		{"tid", T::Long, {}, "stp_tid()", "thread id of the current task"},
		{"ppid", T::Long, {}, "stp_ppid()", "process id of the current task's parent"},
		{"uid", T::Long, {}, "stp_uid()", "user id of the current task"},
		{"execname", T::String, {}, "stp_execname(c)", "name of the current task"},
		{"pp", T::String, {}, "stp_pp(c)", "the probe point that fired"},
		{"target", T::Long, {}, "stp_target()", "pid given with -x or of the -c command"},
		{"gettimeofday_ns", T::Long, {}, "stp_gettimeofday_ns()",
		 "wall-clock time in nanoseconds"},
		{"gettimeofday_us", T::Long, {}, "(stp_gettimeofday_ns() / 1000)",
		 "wall-clock time in microseconds"},
		{"gettimeofday_ms", T::Long, {}, "(stp_gettimeofday_ns() / 1000000)",
		 "wall-clock time in milliseconds"},
		{"gettimeofday_s", T::Long, {}, "(stp_gettimeofday_ns() / 1000000000)",
		 "wall-clock time in seconds"},
		{"local_clock_ns", T::Long, {}, "stp_local_clock_ns()", "this CPU's clock in ns"},
		{"jiffies", T::Long, {}, "((s64)jiffies)", "the kernel's jiffies counter"},
		{"exit", T::Void, {}, "stp_exit(c)", "stop the script after this probe"},
		{"error", T::Void, {T::String}, "stp_error_str(c, $1)",
		 "raise a script error with this message", 0, true},
		{"strlen", T::Long, {T::String}, "stp_strlen($1)", "length of a string"},
		{"substr", T::String, {T::String, T::Long, T::Long}, "stp_substr($t, $1, $2, $3)",
		 "substr(s, start, length): part of s (start 0-based)"},
		{"isinstr", T::Long, {T::String, T::String}, "stp_isinstr($1, $2)",
		 "1 if the second string occurs in the first"},
		{"strpos", T::Long, {T::String, T::String}, "stp_strpos($1, $2)",
		 "index of the second string in the first, or -1"},
		{"strtol", T::Long, {T::String, T::Long}, "stp_strtol(c, $1, $2)",
		 "strtol(s, base): the number at the start of s", 0, true},
		{"str_replace", T::String, {T::String, T::String, T::String},
		 "stp_str_replace($t, $1, $2, $3)", "str_replace(s, old, new): every old replaced"},
		{"text_str", T::String, {T::String}, "stp_text_str($t, $1)",
		 "s with non-printable characters escaped"},
		{"stringat", T::Long, {T::String, T::Long}, "stp_stringat(c, $1, $2)",
		 "stringat(s, i): the character at index i", 0, true},
		{"toupper", T::String, {T::String}, "stp_toupper($t, $1)", "s in upper case"},
		{"returnval", T::Long, {}, "stp_returnval(c)",
		 "the return value, in a .return probe", 0, true},
		{"probefunc", T::String, {}, "stp_probefunc(c)", "name of the probed function"},
		{"kernel_string", T::String, {T::Long}, "stp_kernel_string(c, $t, $1)",
		 "the NUL-terminated kernel string at an address (read without faulting)", 0, true},
		{"kernel_long", T::Long, {T::Long}, "stp_kernel_read(c, $1, 8, 1)",
		 "the long at a kernel address (read without faulting)", 0, true},
		{"kernel_int", T::Long, {T::Long}, "stp_kernel_read(c, $1, 4, 1)",
		 "the int at a kernel address (read without faulting)", 0, true},
		{"kernel_short", T::Long, {T::Long}, "stp_kernel_read(c, $1, 2, 1)",
		 "the short at a kernel address (read without faulting)", 0, true},
		{"kernel_char", T::Long, {T::Long}, "stp_kernel_read(c, $1, 1, 1)",
		 "the char at a kernel address (read without faulting)", 0, true},
		{"kernel_pointer", T::Long, {T::Long}, "stp_kernel_read(c, $1, 8, 0)",
		 "the pointer at a kernel address (read without faulting)", 0, true},
		{"register", T::Long, {T::String}, "stp_register(c, $1)",
		 "register(\"rax\"): a register of the probed context", 0, true},
		{"tolower", T::String, {T::String}, "stp_tolower($t, $1)", "s in lower case"},
		{"user_mode", T::Long, {}, "stp_user_mode(c)",
		 "1 when the probe interrupted user space"},
		{"backtrace", T::String, {}, "stp_backtrace(c, $t)",
		 "hex addresses of the probed context's kernel stack (print_stack() prints them)"},
		{"print_backtrace", T::Void, {}, "stp_print_backtrace(c)",
		 "print the probed context's kernel stack, one symbolized frame per line"},
		{"sprint_backtrace", T::String, {}, "stp_sprint_backtrace(c, $t)",
		 "the probed context's kernel stack, one \"func+0x12 [module]\" line per frame"},
		{"print_stack", T::Void, {T::String}, "stp_print_stack(c, $1)",
		 "print a backtrace() string symbolized, one frame per line", 0, true},
		{"sprint_stack", T::String, {T::String}, "stp_sprint_stack(c, $t, $1)",
		 "a backtrace() string symbolized, one frame per line", 0, true},
	};
}

// SystemTap's task and context functions (runtime/stp_task.h)
std::vector<Builtin> task_builtins()
{
	using T = Type;
	return {
		{"task_current", T::Long, {}, "stp_task_current()",
		 "address of the current task_struct, for the task_* functions"},
		{"task_pid", T::Long, {T::Long}, "stp_task_member(c, $1, tgid, 1)",
		 "task_pid(t): process id (tgid) of the task", 0, true},
		{"task_tgid", T::Long, {T::Long}, "stp_task_member(c, $1, tgid, 1)",
		 "task_tgid(t): thread group id of the task", 0, true},
		{"task_tid", T::Long, {T::Long}, "stp_task_member(c, $1, pid, 1)",
		 "task_tid(t): thread id of the task", 0, true},
		{"task_parent", T::Long, {T::Long}, "stp_task_member(c, $1, real_parent, 0)",
		 "task_parent(t): the task's parent task", 0, true},
		{"task_execname", T::String, {T::Long}, "stp_task_execname(c, $t, $1)",
		 "task_execname(t): name of the task", 0, true},
		{"task_state", T::Long, {T::Long}, "stp_task_state(c, $1)",
		 "task_state(t): scheduler state (0 running, 1 interruptible, 2 uninterruptible, ...)",
		 0, true},
		{"task_cpu", T::Long, {T::Long}, "stp_task_cpu(c, $1)",
		 "task_cpu(t): the CPU the task runs or last ran on", 0, true},
		{"task_prio", T::Long, {T::Long}, "stp_task_prio(c, $1)",
		 "task_prio(t): priority (prio - 100, as ps shows it)", 0, true},
		{"task_nice", T::Long, {T::Long}, "stp_task_nice(c, $1)",
		 "task_nice(t): nice value of the task", 0, true},
		{"pexecname", T::String, {},
		 "stp_task_execname(c, $t, stp_task_member(c, stp_task_current(), real_parent, 0))",
		 "name of the current task's parent", 0, true},
		{"task_uid", T::Long, {T::Long}, "stp_task_cred(c, $1, offsetof(struct cred, uid))",
		 "task_uid(t): user id of the task", 0, true},
		{"task_gid", T::Long, {T::Long}, "stp_task_cred(c, $1, offsetof(struct cred, gid))",
		 "task_gid(t): group id of the task", 0, true},
		{"task_euid", T::Long, {T::Long}, "stp_task_cred(c, $1, offsetof(struct cred, euid))",
		 "task_euid(t): effective user id of the task", 0, true},
		{"task_egid", T::Long, {T::Long}, "stp_task_cred(c, $1, offsetof(struct cred, egid))",
		 "task_egid(t): effective group id of the task", 0, true},
		{"pgrp", T::Long, {}, "stp_pgrp()", "process group id of the current task"},
		{"sid", T::Long, {}, "stp_sid()", "session id of the current task"},
		{"gid", T::Long, {}, "stp_gid()", "group id of the current task"},
		{"egid", T::Long, {}, "stp_egid()", "effective group id of the current task"},
		{"euid", T::Long, {}, "stp_euid()", "effective user id of the current task"},
		{"probemod", T::String, {}, "stp_probemod(c, $t)",
		 "module of the probed function (\"kernel\" for the kernel's own)"},
		{"ppfunc", T::String, {}, "stp_probefunc(c)",
		 "function name of the probe point, without its module"},
		{"cmdline_str", T::String, {}, "stp_cmdline_str(c, $t)",
		 "arguments of the current process, space separated (\"\" for kernel threads)", 0,
		 true},
		{"get_cycles", T::Long, {}, "stp_get_cycles()",
		 "the CPU's cycle counter (x86 TSC, arm64 virtual counter)"},
		{"ktime_get_ns", T::Long, {}, "stp_ktime_get_ns()",
		 "monotonic clock (CLOCK_MONOTONIC) in nanoseconds"},
		{"ctime", T::String, {T::Long}, "stp_ctime($t, $1)",
		 "ctime(secs): \"Wed Jun 30 21:49:08 1993\" for seconds since the epoch (UTC)"},
		{"ctime", T::String, {}, "stp_ctime($t, stp_gettimeofday_ns() / 1000000000)",
		 "ctime(): the current time as ctime(gettimeofday_s())"},
		{"tz_gmtoff", T::Long, {}, "stp_tz_gmtoff()",
		 "the loader's local time zone at load time, in seconds west of UTC"},
		{"tz_name", T::String, {}, "stp_tz_name()",
		 "the name of the loader's local time zone at load time (\"CET\")"},
		{"is_return", T::Long, {}, "stp_is_return(c)", "1 in a .return probe, else 0"},
		{"u_register", T::Long, {T::String}, "stp_register(c, $1)",
		 "u_register(\"rax\"): register() read as unsigned", 0, true},
		{"system", T::Void, {T::String}, "stp_system(c, $1)",
		 "system(cmd): the loader runs cmd with /bin/sh -c, asynchronously", 0, true},
		{"ansi_set_color", T::Void, {T::Long}, "stp_printf(c, \"\\033[%lldm\", (long long)($1))",
		 "ansi_set_color(fg): the escape sequence of foreground colour fg (30-37)"},
		{"ansi_set_color", T::Void, {T::Long, T::Long},
		 "stp_printf(c, \"\\033[%lld;%lldm\", (long long)($2), (long long)($1))",
		 "ansi_set_color(fg, bg): foreground fg and background bg (40-47)"},
		{"ansi_set_color", T::Void, {T::Long, T::Long, T::Long}, "stp_ansi_color3(c, $1, $2, $3)",
		 "ansi_set_color(fg, bg, attr): and attribute attr (0 none, 1 bold, 4 underline, ...)"},
		{"log", T::Void, {T::String}, "stp_log(c, $1)", "print a line: the message and a newline"},
		{"warn", T::Void, {T::String}, "stp_warn(c, $1)",
		 "print \"WARNING: msg\" where errors are printed; the script goes on"},
	};
}

// strings and memory named by address (runtime/stp_string.h, stp_uaccess.h)
std::vector<Builtin> string_builtins()
{
	using T = Type;
	return {
		{"kernel_string", T::String, {T::Long, T::String},
		 "stp_kernel_string_n(c, $t, $1, STP_MAXSTRINGLEN - 1, $2)",
		 "kernel_string(addr, err_msg): err_msg when the address cannot be read"},
		{"kernel_string_n", T::String, {T::Long, T::Long},
		 "stp_kernel_string_n(c, $t, $1, $2, NULL)",
		 "kernel_string_n(addr, n): at most n bytes of a kernel string", 0, true},
		{"kernel_string_quoted", T::String, {T::Long},
		 "stp_string_quoted($t, $1, STP_MAXSTRINGLEN - 1, false)",
		 "a kernel string in quotes with text_str escapes (its address when unreadable)"},
		{"user_string", T::String, {T::Long},
		 "stp_user_string_n(c, $t, $1, STP_MAXSTRINGLEN - 1, NULL)",
		 "the NUL-terminated string at a user address of the current task", 0, true},
		{"user_string", T::String, {T::Long, T::String},
		 "stp_user_string_n(c, $t, $1, STP_MAXSTRINGLEN - 1, $2)",
		 "user_string(addr, err_msg): err_msg when the address cannot be read"},
		{"user_string_n", T::String, {T::Long, T::Long},
		 "stp_user_string_n(c, $t, $1, $2, NULL)",
		 "user_string_n(addr, n): at most n bytes of a user string", 0, true},
		{"user_string_n", T::String, {T::Long, T::Long, T::String},
		 "stp_user_string_n(c, $t, $1, $2, $3)",
		 "user_string_n(addr, n, err_msg): err_msg when the address cannot be read"},
		{"user_string_warn", T::String, {T::Long},
		 "stp_user_string_warn(c, $t, $1, STP_MAXSTRINGLEN - 1)",
		 "user_string(addr), or a warning and \"<unknown>\" when it cannot be read"},
		{"user_string_n_warn", T::String, {T::Long, T::Long},
		 "stp_user_string_warn(c, $t, $1, $2)",
		 "user_string_n(addr, n), or a warning and \"<unknown>\" when it cannot be read"},
		{"user_string2", T::String, {T::Long, T::String},
		 "stp_user_string_n(c, $t, $1, STP_MAXSTRINGLEN - 1, $2)",
		 "user_string2(addr, err_msg): SystemTap's older name of user_string(addr, err_msg)"},
		{"user_string_n2", T::String, {T::Long, T::Long, T::String},
		 "stp_user_string_n(c, $t, $1, $2, $3)",
		 "SystemTap's older name of user_string_n(addr, n, err_msg)"},
		{"kernel_string2", T::String, {T::Long, T::String},
		 "stp_kernel_string_n(c, $t, $1, STP_MAXSTRINGLEN - 1, $2)",
		 "SystemTap's older name of kernel_string(addr, err_msg)"},
		{"user_string_quoted", T::String, {T::Long},
		 "stp_string_quoted($t, $1, STP_MAXSTRINGLEN - 1, true)",
		 "a user string in quotes with text_str escapes (its address when unreadable)"},
		{"user_string_n_quoted", T::String, {T::Long, T::Long},
		 "stp_string_quoted($t, $1, stp_string_len($2), true)",
		 "user_string_n_quoted(addr, n): at most n bytes, quoted"},
		{"text_strn", T::String, {T::String, T::Long, T::Long},
		 "stp_text_strn($t, $1, $2, $3)",
		 "text_strn(s, len, quoted): text_str(s) in at most len bytes, optionally quoted"},
		{"tokenize", T::String, {T::String, T::String}, "stp_tokenize($t, $1, $2)",
		 "tokenize(s, delim): first token of s; with s \"\" the next token of the last s"},
		{"isdigit", T::Long, {T::String}, "stp_isdigit($1)",
		 "1 when the string starts with a decimal digit"},
		{"matched", T::String, {T::Long}, "stp_regex_matched(c, &c->regex, $t, $1)",
		 "matched(n): subexpression n of the last successful =~ (0: the whole match; "
		 "\"\" when it took no part); an error after a failed match",
		 0, true},
		{"matched_str", T::String, {}, "stp_regex_matched_str(c, &c->regex, $t)",
		 "the string the last successful =~ matched; an error after a failed match", 0,
		 true},
		{"ngroups", T::Long, {}, "stp_regex_ngroups(c, &c->regex)",
		 "the parenthesized subexpressions of the last successful =~'s regex; an error "
		 "after a failed match",
		 0, true},
	};
}

// user_char() ... user_long(): 0 on a fault; the *_error forms raise an error
std::vector<Builtin> user_read_builtins()
{
	struct Form {
		const char *name, *error_name, *c, *error_c;
	};
	static const Form forms[] = {
		{"user_char", "user_char_error", "stp_user_read(c, $1, 1, 1, 0)",
		 "stp_user_read(c, $1, 1, 1, 1)"},
		{"user_short", "user_short_error", "stp_user_read(c, $1, 2, 1, 0)",
		 "stp_user_read(c, $1, 2, 1, 1)"},
		{"user_ushort", "user_ushort_error", "stp_user_read(c, $1, 2, 0, 0)",
		 "stp_user_read(c, $1, 2, 0, 1)"},
		{"user_int", "user_int_error", "stp_user_read(c, $1, 4, 1, 0)",
		 "stp_user_read(c, $1, 4, 1, 1)"},
		{"user_long", "user_long_error", "stp_user_read(c, $1, 8, 1, 0)",
		 "stp_user_read(c, $1, 8, 1, 1)"},
		{"user_int8", "user_int8_error", "stp_user_read(c, $1, 1, 1, 0)",
		 "stp_user_read(c, $1, 1, 1, 1)"},
		{"user_uint8", "user_uint8_error", "stp_user_read(c, $1, 1, 0, 0)",
		 "stp_user_read(c, $1, 1, 0, 1)"},
		{"user_int16", "user_int16_error", "stp_user_read(c, $1, 2, 1, 0)",
		 "stp_user_read(c, $1, 2, 1, 1)"},
		{"user_uint16", "user_uint16_error", "stp_user_read(c, $1, 2, 0, 0)",
		 "stp_user_read(c, $1, 2, 0, 1)"},
		{"user_int32", "user_int32_error", "stp_user_read(c, $1, 4, 1, 0)",
		 "stp_user_read(c, $1, 4, 1, 1)"},
		{"user_uint32", "user_uint32_error", "stp_user_read(c, $1, 4, 0, 0)",
		 "stp_user_read(c, $1, 4, 0, 1)"},
		{"user_int64", "user_int64_error", "stp_user_read(c, $1, 8, 1, 0)",
		 "stp_user_read(c, $1, 8, 1, 1)"},
		{"user_uint64", "user_uint64_error", "stp_user_read(c, $1, 8, 0, 0)",
		 "stp_user_read(c, $1, 8, 0, 1)"},
	};
	std::vector<Builtin> out;
	for (const Form &f : forms) {
		out.push_back({f.name, Type::Long, {Type::Long}, f.c,
			       "the value at a user address of the current task; 0 when unreadable"});
		out.push_back({f.error_name, Type::Long, {Type::Long}, f.error_c,
			       "the value at a user address; an error when unreadable", 0, true});
	}
	return out;
}

// SystemTap's stack, symbol and process-lookup functions (runtime/stp_backtrace.h,
// stp_task.h)
std::vector<Builtin> context_builtins()
{
	using T = Type;
	return {
		{"symname", T::String, {T::Long}, "stp_symname($t, $1)",
		 "symname(addr): the function at a kernel address (its address in hex if unknown)"},
		{"symdata", T::String, {T::Long}, "stp_symdata($t, $1)",
		 "symdata(addr): \"func+0x12/0x40 [module]\" of a kernel address"},
		{"caller_addr", T::Long, {}, "stp_caller_addr(c)",
		 "the return address into the probed function's caller (0 if unknown)"},
		{"caller", T::String, {}, "stp_caller(c, $t)",
		 "\"func 0xADDR\": the probed function's caller"},
		{"callers", T::String, {T::Long}, "stp_callers(c, $t, $1)",
		 "callers(n): the first n caller addresses of the kernel stack (-1: all)"},
		{"stack", T::Long, {T::Long}, "stp_stack(c, $1)",
		 "stack(n): the address at depth n of the kernel stack (0: the probed address)", 0,
		 true},
		{"modname", T::String, {T::Long}, "stp_modname(c, $t, $1)",
		 "modname(addr): the module holding a kernel address (\"kernel\" for the kernel's own)",
		 0, true},
		{"addr", T::Long, {}, "stp_addr(c)",
		 "the probed address: the instruction pointer of the probe's registers (0 without)"},
		{"print_regs", T::Void, {}, "stp_print_regs(c)",
		 "print the probe's registers, three to a line (nothing without registers)"},
		{"pid2task", T::Long, {T::Long}, "stp_pid2task($1)",
		 "pid2task(pid): address of the process's task_struct, 0 if there is none"},
		{"pid2execname", T::String, {T::Long}, "stp_pid2execname($t, $1)",
		 "pid2execname(pid): name of the process, \"\" if there is none"},
		{"stp_pid", T::Long, {}, "stp_loader_pid()",
		 "process id of the loader that loaded the module (SystemTap's stapio)"},
		{"env_var", T::String, {T::String}, "stp_env_var($t, $1)",
		 "env_var(name): a variable of the current process's environment, \"\" if unset"},
		{"sprint_loadavg", T::String, {}, "stp_sprint_loadavg($t)",
		 "the 1, 5 and 15 minute load averages, \"0.42 0.17 0.06\""},
		{"task_utime", T::Long, {}, "stp_task_utime()",
		 "user time of the current task, in cputime units (ns)"},
		{"task_stime", T::Long, {}, "stp_task_stime()",
		 "system time of the current task, in cputime units (ns)"},
		{"HZ", T::Long, {}, "((s64)HZ)", "the kernel's timer ticks per second (CONFIG_HZ)"},
		{"mem_page_size", T::Long, {}, "((s64)PAGE_SIZE)", "the kernel's page size in bytes"},
		{"addr_to_node", T::Long, {T::Long}, "stp_addr_to_node(c, $1)",
		 "addr_to_node(addr): the NUMA node of a kernel (linear map) address", 0, true},
		{"local_clock_us", T::Long, {}, "(stp_local_clock_ns() / 1000)",
		 "this CPU's clock in microseconds"},
		{"local_clock_ms", T::Long, {}, "(stp_local_clock_ns() / 1000000)",
		 "this CPU's clock in milliseconds"},
		{"local_clock_s", T::Long, {}, "(stp_local_clock_ns() / 1000000000)",
		 "this CPU's clock in seconds"},
		{"cpu_clock_ns", T::Long, {T::Long}, "stp_cpu_clock_ns($1)",
		 "cpu_clock_ns(cpu): that CPU's clock in ns (0 for a CPU that does not exist)"},
		{"cpu_clock_us", T::Long, {T::Long}, "(stp_cpu_clock_ns($1) / 1000)",
		 "cpu_clock_us(cpu): that CPU's clock in microseconds"},
		{"cpu_clock_ms", T::Long, {T::Long}, "(stp_cpu_clock_ns($1) / 1000000)",
		 "cpu_clock_ms(cpu): that CPU's clock in milliseconds"},
		{"cpu_clock_s", T::Long, {T::Long}, "(stp_cpu_clock_ns($1) / 1000000000)",
		 "cpu_clock_s(cpu): that CPU's clock in seconds"},
	};
}

// SystemTap's registers tapset: the probed function's arguments by number
// (runtime/stp_tvar.h), each cut to its C type's size
std::vector<Builtin> arg_builtins()
{
	struct Form {
		const char *name, *c, *summary;
	};
	static const Form forms[] = {
		{"int_arg", "stp_regs_arg(c, $1, 4, 1)", "argument n as a signed int"},
		{"uint_arg", "stp_regs_arg(c, $1, 4, 0)", "argument n as an unsigned int"},
		{"long_arg", "stp_regs_arg(c, $1, 8, 1)", "argument n as a signed long"},
		{"ulong_arg", "stp_regs_arg(c, $1, 8, 0)", "argument n as an unsigned long"},
		{"longlong_arg", "stp_regs_arg(c, $1, 8, 1)", "argument n as a 64-bit value"},
		{"ulonglong_arg", "stp_regs_arg(c, $1, 8, 0)", "argument n as a 64-bit value"},
		{"pointer_arg", "stp_regs_arg(c, $1, 8, 0)", "argument n as a pointer"},
		{"s32_arg", "stp_regs_arg(c, $1, 4, 1)", "argument n as a signed 32-bit value"},
		{"u32_arg", "stp_regs_arg(c, $1, 4, 0)", "argument n as an unsigned 32-bit value"},
		{"s64_arg", "stp_regs_arg(c, $1, 8, 1)", "argument n as a signed 64-bit value"},
		{"u64_arg", "stp_regs_arg(c, $1, 8, 0)", "argument n as an unsigned 64-bit value"},
		{"short_arg", "stp_regs_arg(c, $1, 2, 1)", "argument n as a signed short"},
		{"ushort_arg", "stp_regs_arg(c, $1, 2, 0)", "argument n as an unsigned short"},
		{"char_arg", "stp_regs_arg(c, $1, 1, 1)", "argument n as a signed char"},
		{"uchar_arg", "stp_regs_arg(c, $1, 1, 0)", "argument n as an unsigned char"},
	};
	std::vector<Builtin> out;
	for (const Form &f : forms)
		out.push_back({f.name, Type::Long, {Type::Long}, f.c, f.summary, 0, true});
	// the calling-convention markers: x86-64 and arm64 kernels have one
	out.push_back({"asmlinkage", Type::Void, {}, "((void)0)",
		       "marks the probed function asmlinkage (nothing to do on x86-64 and arm64)"});
	out.push_back({"fastcall", Type::Void, {}, "((void)0)",
		       "marks the probed function fastcall (nothing to do on x86-64 and arm64)"});
	return out;
}

// SystemTap's ucontext functions: the probed task's user stack and user
// symbols (runtime/stp_ubacktrace.h), over the tables of the binaries the
// module knows. Their C starts "stp_ubt_": a script calling one gets the
// tables (SemaResult::user_symbols).
std::vector<Builtin> user_stack_builtins()
{
	using T = Type;
	return {
		{"ubacktrace", T::String, {}, "stp_ubt_backtrace(c, $t)",
		 "hex addresses of the probed task's user stack (print_ustack() prints them)"},
		{"print_ubacktrace", T::Void, {}, "stp_ubt_print_backtrace(c)",
		 "print the probed task's user stack, one symbolized frame per line"},
		{"print_ubacktrace_brief", T::Void, {}, "stp_ubt_print_brief(c)",
		 "print the probed task's user stack, \"func+0x12\" per line"},
		{"sprint_ubacktrace", T::String, {}, "stp_ubt_sprint_backtrace(c, $t)",
		 "the probed task's user stack, one \"func+0x12 [/path/prog]\" line per frame"},
		{"ucallers", T::String, {T::Long}, "stp_ubt_callers(c, $t, $1)",
		 "ucallers(n): the first n callers of the user stack (-1: all), as ubacktrace()"},
		{"uaddr", T::Long, {}, "stp_ubt_uaddr(c)",
		 "the user address the probed task was at (0: none)"},
		{"usymname", T::String, {T::Long}, "stp_ubt_symname($t, $1)",
		 "usymname(addr): the function holding a user address, or the address in hex"},
		{"usymdata", T::String, {T::Long}, "stp_ubt_symdata($t, $1)",
		 "usymdata(addr): \"func+0x12/0x40 [/path/prog]\", or the address in hex"},
		{"umodname", T::String, {T::Long}, "stp_ubt_modname(c, $t, $1)",
		 "umodname(addr): the file name of the binary mapped at a user address", 0, true},
		{"print_ustack", T::Void, {T::String}, "stp_print_stack(c, $1)",
		 "print a ubacktrace() string symbolized, one frame per line", 0, true},
		{"sprint_ustack", T::String, {T::String}, "stp_sprint_stack(c, $t, $1)",
		 "a ubacktrace() string symbolized, one frame per line", 0, true},
		{"print_usyms", T::Void, {T::String}, "stp_print_stack(c, $1)",
		 "print a ubacktrace()/ucallers() string symbolized, one frame per line", 0, true},
		{"sprint_usyms", T::String, {T::String}, "stp_sprint_stack(c, $t, $1)",
		 "a ubacktrace()/ucallers() string symbolized, one frame per line", 0, true},
	};
}

// SystemTap functions stap-pmu refuses, with the reason
std::vector<Builtin> refused_builtins()
{
	using T = Type;
	return {
		{"switch_file", T::Void, {}, "", "", 0, false,
		 "output files are not rotated (stap-pmu has no -S)"},
		{"regparm", T::Void, {T::Long}, "", "", 0, false,
		 "regparm() describes i386 code, which stap-pmu does not probe"},
	};
}

} // namespace

const std::vector<Builtin> &all_builtins()
{
	static const std::vector<Builtin> table = [] {
		std::vector<Builtin> t = core_builtins();
		for (auto group : {task_builtins, string_builtins, user_read_builtins,
				   context_builtins, arg_builtins, user_stack_builtins,
				   refused_builtins}) {
			std::vector<Builtin> g = group();
			t.insert(t.end(), g.begin(), g.end());
		}
		return t;
	}();
	return table;
}

const Builtin *find_builtin(const std::string &name)
{
	for (const Builtin &b : all_builtins())
		if (name == b.name)
			return &b;
	return nullptr;
}

const Builtin *find_builtin(const std::string &name, size_t nargs)
{
	for (const Builtin &b : all_builtins())
		if (name == b.name &&
		    (b.unsupported || (nargs + b.optional >= b.params.size() && nargs <= b.params.size())))
			return &b;
	return nullptr;
}

std::string builtin_arities(const std::string &name)
{
	std::set<size_t> n;
	for (const Builtin &b : all_builtins())
		if (name == b.name)
			for (size_t k = b.params.size() - b.optional; k <= b.params.size(); k++)
				n.insert(k);
	std::string out;
	size_t i = 0;
	for (size_t k : n) {
		if (i)
			out += ++i == n.size() ? " or " : ", ";
		else
			i++;
		out += std::to_string(k);
	}
	return out;
}

std::set<std::string> builtin_names()
{
	std::set<std::string> out;
	for (const Builtin &b : all_builtins())
		out.insert(b.name);
	return out;
}

} // namespace stap_pmu
