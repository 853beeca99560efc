// cache.h - the module cache: ~/.cache/stap-pmu/modules/<key>/NAME.ko.
//
// The key hashes everything that changes the module: the script and the
// tapsets it pulled in, the translation and build options, the kernel build
// tree (release, .config, Module.symvers), the runtime headers and the
// stap-pmu build. A hit skips passes 2-4. See docs/deploy.md.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "translator/support/result.h"

namespace stap_pmu::cache {

// Labelled inputs of a key, hashed in the order added.
class Key {
public:
	void add(const std::string &label, const std::string &value);
	// add() of a file's identity: its content hash ("missing" when unreadable).
	void add_file(const std::string &label, const std::string &path);
	// add() of a file's path, size and mtime (large inputs: vmlinux, module trees).
	void add_file_stat(const std::string &label, const std::string &path);
	std::string hex() const; // 32 hex digits
private:
	std::vector<std::pair<std::string, std::string>> parts_;
};

// 32 hex digits of a byte string (two FNV-1a 64 with different bases).
std::string digest(const std::string &data);

// The kernel build tree's contribution: release, .config, Module.symvers,
// generated utsrelease.h/autoconf.h.
void add_build_tree(Key &k, const std::string &tree_dir, const std::string &release);

// Every file of a directory (sorted, recursive): the runtime headers.
void add_dir(Key &k, const std::string &label, const std::string &dir);

// dir/<key>/<module>.ko when present.
std::optional<std::string> lookup(const std::string &dir, const std::string &key,
				  const std::string &module);

// Copies ko into dir/<key>/<module>.ko atomically (a temporary directory
// renamed into place; a concurrent store of the same key wins harmlessly).
// Returns the cached path.
Result<std::string> store(const std::string &dir, const std::string &key,
			  const std::string &module, const std::string &ko);

// Removes every entry; returns how many.
Result<int> clean(const std::string &dir);

} // namespace stap_pmu::cache
