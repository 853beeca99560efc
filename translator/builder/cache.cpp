// cache.cpp - the module cache (cache.h).
#include "translator/builder/cache.h"

#include "translator/support/file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace stap_pmu::cache {

namespace {

uint64_t fnv(const std::string &s, uint64_t h)
{
	for (unsigned char c : s) {
		h ^= c;
		h *= 0x100000001b3ull;
	}
	return h;
}

} // namespace

std::string digest(const std::string &data)
{
	char buf[33];
	std::snprintf(buf, sizeof buf, "%016" PRIx64 "%016" PRIx64, fnv(data, 0xcbf29ce484222325ull),
		      fnv(data, 0x84222325cbf29ce4ull));
	return buf;
}

void Key::add(const std::string &label, const std::string &value) { parts_.emplace_back(label, value); }

void Key::add_file(const std::string &label, const std::string &path)
{
	auto s = sys::read_file(path);
	add(label, s ? digest(*s) : "missing");
}

void Key::add_file_stat(const std::string &label, const std::string &path)
{
	struct stat sb;
	if (stat(path.c_str(), &sb) != 0) {
		add(label, path + " missing");
		return;
	}
	add(label, path + " " + std::to_string(sb.st_size) + " " + std::to_string(sb.st_mtim.tv_sec) +
			   "." + std::to_string(sb.st_mtim.tv_nsec));
}

std::string Key::hex() const
{
	std::string all;
	for (const auto &[l, v] : parts_) {
		// length-prefixed, so no two part lists give the same bytes
		all += std::to_string(l.size()) + ":" + l + std::to_string(v.size()) + ":" + v;
	}
	return digest(all);
}

void add_build_tree(Key &k, const std::string &tree, const std::string &release)
{
	k.add("tree.release", release);
	k.add_file("tree.config", tree + "/.config");
	k.add_file("tree.symvers", tree + "/Module.symvers");
	k.add_file("tree.utsrelease", tree + "/include/generated/utsrelease.h");
	k.add_file("tree.autoconf", tree + "/include/generated/autoconf.h");
}

void add_dir(Key &k, const std::string &label, const std::string &dir)
{
	std::vector<std::string> files;
	std::error_code ec;
	for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
	     it.increment(ec))
		if (it->is_regular_file(ec))
			files.push_back(it->path().string());
	std::sort(files.begin(), files.end());
	for (const std::string &f : files)
		k.add_file(label + ":" + fs::relative(f, dir, ec).string(), f);
}

std::optional<std::string> lookup(const std::string &dir, const std::string &key,
				  const std::string &module)
{
	std::string p = dir + "/" + key + "/" + module + ".ko";
	struct stat sb;
	if (stat(p.c_str(), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0)
		return p;
	return std::nullopt;
}

Result<std::string> store(const std::string &dir, const std::string &key,
			  const std::string &module, const std::string &ko)
{
	std::error_code ec;
	fs::create_directories(dir, ec);
	if (ec)
		return fail("cannot create " + dir + ": " + ec.message());
	std::string tmpl = dir + "/.tmp-" + key + "-XXXXXX";
	if (!mkdtemp(tmpl.data()))
		return fail("cannot create a directory in " + dir + ": " + std::strerror(errno));
	fs::copy_file(ko, tmpl + "/" + module + ".ko", fs::copy_options::overwrite_existing, ec);
	std::string final_dir = dir + "/" + key;
	if (!ec)
		fs::rename(tmpl, final_dir, ec);
	if (ec) {
		fs::remove_all(tmpl);
		// another run stored the same key first: use its copy
		if (auto p = lookup(dir, key, module))
			return *p;
		return fail("cannot store the module in " + final_dir + ": " + ec.message());
	}
	return final_dir + "/" + module + ".ko";
}

Result<int> clean(const std::string &dir)
{
	std::error_code ec;
	if (!fs::exists(dir, ec))
		return 0;
	int n = 0;
	for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::end(it); it.increment(ec)) {
		std::error_code rec;
		fs::remove_all(it->path(), rec);
		if (rec)
			return fail("cannot remove " + it->path().string() + ": " + rec.message());
		n++;
	}
	if (ec)
		return fail("cannot read " + dir + ": " + ec.message());
	return n;
}

} // namespace stap_pmu::cache
