// source.h - script text and positions inside it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "translator/support/result.h"

namespace stap_pmu {

// One script file (or "<input>" for -e) held in memory.
class SourceFile {
public:
	SourceFile(std::string name, std::string text);

	const std::string &name() const { return name_; }
	const std::string &text() const { return text_; }
	// Text of 1-based line n without its newline ("" when out of range).
	std::string_view line(unsigned n) const;

private:
	std::string name_;
	std::string text_;
	std::vector<size_t> line_starts_;
};

// A position in a source file. line and col are 1-based; col counts bytes.
struct SourceLoc {
	const SourceFile *file = nullptr;
	unsigned line = 0;
	unsigned col = 0;

	bool valid() const { return file != nullptr && line != 0; }
	std::string str() const; // "file:line:col"
};

// Scripts larger than this are refused: the front end keeps every token
// and node in memory, and no real script comes near it.
inline constexpr size_t max_script_bytes = 4u << 20;

// Fails, saying so, for a script of `bytes` bytes over the limit.
Status check_script_size(const std::string &name, size_t bytes);

// Reads a script from disk; the error says why it is not a script it can read.
Result<std::unique_ptr<SourceFile>> read_source_file(const std::string &path);

} // namespace stap_pmu
