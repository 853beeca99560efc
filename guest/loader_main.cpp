// stap-pmu-loader - loads and runs one stap-pmu module (static; used inside guests).
//   stap-pmu-loader [-x PID] [-c CMD] [-o FILE] [-f FORMAT] [-v] MODULE.ko
//   stap-pmu-loader [-o FILE] [-f FORMAT] [-v] -A NAME   attach to a loaded module (--attach)
//   stap-pmu-loader [-o FILE] [-f FORMAT] [-v] -S NAME   stop and unload it (--stop)
// FORMAT: text (default) or json (one JSON object per output record).
#include "translator/run/loader.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

[[noreturn]] void usage(const char *msg)
{
	if (msg)
		std::fprintf(stderr, "stap-pmu-loader: %s\n", msg);
	std::fprintf(stderr, "usage: stap-pmu-loader [-x PID] [-c CMD] [-o FILE] [-f text|json] [-v] MODULE.ko\n"
			     "       stap-pmu-loader [-o FILE] [-f text|json] [-v] -A|-S NAME\n");
	std::exit(2);
}

// The loader's error, printed here as stap-pmu prints it.
int exit_code(const stap_pmu::Result<int> &r)
{
	if (r)
		return *r;
	std::fprintf(stderr, "stap-pmu: error: %s\n", r.error().what.c_str());
	return 1;
}

} // namespace

int main(int argc, char **argv)
{
	stap_pmu::loader::LoadOptions o;
	int c;
	char session = 0; // 'A' attach, 'S' stop
	std::string session_name;
	while ((c = getopt(argc, argv, "+x:c:o:f:vhA:S:")) != -1) {
		switch (c) {
		case 'x': {
			char *end;
			errno = 0;
			long v = std::strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v <= 0 || v > 0x3fffffff)
				usage("-x needs a process id");
			o.target_pid = (int)v;
			break;
		}
		case 'c':
			o.command = optarg;
			if (o.command.empty())
				usage("-c needs a command");
			break;
		case 'o':
			o.output_file = optarg;
			break;
		case 'f':
			if (std::strcmp(optarg, "json") == 0)
				o.json = true;
			else if (std::strcmp(optarg, "text") == 0)
				o.json = false;
			else
				usage("-f takes text or json");
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'A':
		case 'S':
			if (session)
				usage("-A and -S cannot be used together");
			session = (char)c;
			session_name = optarg;
			break;
		case 'h':
			usage(nullptr);
		default:
			usage(nullptr);
		}
	}
	if (session) {
		if (optind != argc || o.target_pid || !o.command.empty())
			usage("-A/-S take a module name and no module file, -x or -c");
		stap_pmu::loader::SessionOptions so;
		so.module_name = session_name;
		so.output_file = o.output_file;
		so.json = o.json;
		so.verbose = o.verbose;
		return exit_code(session == 'A' ? stap_pmu::loader::attach_module(so)
						: stap_pmu::loader::stop_module(so));
	}
	if (optind != argc - 1)
		usage(optind >= argc ? "no module given" : "exactly one module expected");
	if (o.target_pid && !o.command.empty())
		usage("-x and -c cannot be used together");
	o.module_path = argv[optind];
	return exit_code(stap_pmu::loader::run_module(o));
}
