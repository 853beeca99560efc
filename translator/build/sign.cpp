// sign.cpp - signs a built module with the kernel's own sign-file.
#include "translator/build/sign.h"

#include "translator/kernelinfo/kernel.h"
#include "translator/run/loader.h"
#include "translator/support/process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace stap_pmu::sign {

bool sign_module(const std::string &tree, const std::string &key, const std::string &cert,
		 const std::string &ko, std::string *err)
{
	std::string tool = tree + "/scripts/sign-file";
	if (access(tool.c_str(), X_OK) != 0) {
		*err = "cannot sign: " + tool + " is missing or not executable (" + strerror(errno) + ")";
		return false;
	}
	for (const std::string &f : {key, cert})
		if (access(f.c_str(), R_OK) != 0) {
			*err = "cannot sign: " + f + ": " + strerror(errno);
			return false;
		}
	char log[] = "/tmp/stap-pmu-sign.XXXXXX";
	int fd = mkstemp(log);
	if (fd < 0) {
		*err = std::string("cannot sign: temporary file: ") + strerror(errno);
		return false;
	}
	std::string why;
	int st = sys::run({tool, "sha256", key, cert, ko}, -1, fd, fd, "", 60, &why);
	close(fd);
	std::ifstream f(log);
	std::stringstream ss;
	ss << f.rdbuf();
	unlink(log);
	std::string out = ss.str();
	while (!out.empty() && out.back() == '\n')
		out.pop_back();
	if (st != 0 || !loader::module_is_signed(ko)) {
		*err = "sign-file failed" + (why.empty() ? "" : ": " + why) +
		       (out.empty() ? "" : ": " + out.substr(0, out.find('\n')));
		return false;
	}
	return true;
}

} // namespace stap_pmu::sign
