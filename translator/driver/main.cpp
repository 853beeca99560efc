// main.cpp - the stap-pmu command line: parses the options (cli.h) and
// hands them to the driver (driver.h), which runs the action or passes 1-5.
// Errors travel up to here as values and are printed once.
#include "translator/driver/cli.h"
#include "translator/driver/driver.h"

using namespace stap_pmu;

int main(int argc, char **argv)
{
	Cli cli;
	if (int rc = parse_command_line(argc, argv, cli); rc >= 0)
		return rc;
	Result<int> rc = drive(std::move(cli));
	return rc ? *rc : report(rc.error());
}
