// builtins.cpp - the builtin function table.
#include "translator/builtins.h"

namespace stap_pmu {

const std::vector<Builtin> &all_builtins()
{
	static const std::vector<Builtin> table = {
		{"cpu", Type::Long, {}, "stp_cpu()", "number of the current CPU"},
		{"pid", Type::Long, {}, "stp_pid()", "process id of the current task"},
		{"tid", Type::Long, {}, "stp_tid()", "thread id of the current task"},
		{"execname", Type::String, {}, "stp_execname(c)", "name of the current task"},
		{"target", Type::Long, {}, "stp_target()", "pid given with -x or of the -c command"},
		{"gettimeofday_ns", Type::Long, {}, "stp_gettimeofday_ns()",
		 "wall-clock time in nanoseconds"},
		{"exit", Type::Void, {}, "stp_exit(c)", "stop the script after this probe"},
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

} // namespace stap_pmu
