// builtins.cpp - the builtin function table.
#include "translator/sema/builtins.h"

namespace stap_pmu {

const std::vector<Builtin> &all_builtins()
{
	using T = Type;
	static const std::vector<Builtin> table = {
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
	return table;
}

const Builtin *find_builtin(const std::string &name)
{
	for (const Builtin &b : all_builtins())
		if (name == b.name)
			return &b;
	return nullptr;
}

std::set<std::string> builtin_names()
{
	std::set<std::string> out;
	for (const Builtin &b : all_builtins())
		out.insert(b.name);
	return out;
}

} // namespace stap_pmu
