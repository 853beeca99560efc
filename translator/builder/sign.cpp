// sign.cpp - signs a built module with the kernel's own sign-file.
#include "translator/builder/sign.h"

#include "translator/run/loader.h"
#include "translator/support/file.h"
#include "translator/support/process.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace stap_pmu::sign {

Status sign_module(const std::string &tree, const std::string &key, const std::string &cert,
		   const std::string &ko)
{
	std::string tool = tree + "/scripts/sign-file";
	if (access(tool.c_str(), X_OK) != 0)
		return fail("cannot sign: " + tool + " is missing or not executable (" +
			    strerror(errno) + ")");
	for (const std::string &f : {key, cert})
		if (access(f.c_str(), R_OK) != 0)
			return fail("cannot sign: " + f + ": " + strerror(errno));
	auto tmp = sys::TempDir::create("stap-pmu-sign.");
	if (!tmp)
		return fail("cannot sign: temporary file: " + tmp.error().what);
	const std::string log = tmp->path() + "/log";
	sys::Fd fd(open(log.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
	if (!fd)
		return fail(std::string("cannot sign: temporary file: ") + strerror(errno));
	sys::Spawn spec;
	spec.argv = {tool, "sha256", key, cert, ko};
	spec.out = spec.err = fd.get();
	auto st = sys::run(spec, 60);
	fd.reset();
	std::string out = sys::read_file(log).value_or("");
	while (!out.empty() && out.back() == '\n')
		out.pop_back();
	std::string why = st ? "" : st.error().what;
	if (!st || *st != 0 || !loader::module_is_signed(ko))
		return fail("sign-file failed" + (why.empty() ? "" : ": " + why) +
			    (out.empty() ? "" : ": " + out.substr(0, out.find('\n'))));
	return {};
}

} // namespace stap_pmu::sign
