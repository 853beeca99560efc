// source.cpp - script text and positions.
#include "translator/source.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace stap_pmu {

SourceFile::SourceFile(std::string name, std::string text)
	: name_(std::move(name)), text_(std::move(text))
{
	line_starts_.push_back(0);
	for (size_t i = 0; i < text_.size(); i++)
		if (text_[i] == '\n')
			line_starts_.push_back(i + 1);
}

std::string_view SourceFile::line(unsigned n) const
{
	if (n == 0 || n > line_starts_.size())
		return {};
	size_t begin = line_starts_[n - 1];
	size_t end = text_.find('\n', begin);
	if (end == std::string::npos)
		end = text_.size();
	return std::string_view(text_).substr(begin, end - begin);
}

std::string SourceLoc::str() const
{
	if (!file)
		return "<unknown>";
	return file->name() + ":" + std::to_string(line) + ":" + std::to_string(col);
}

std::unique_ptr<SourceFile> read_source_file(const std::string &path, std::string *err)
{
	std::ifstream in(path, std::ios::binary);
	if (!in) {
		*err = path + ": cannot open: " + std::strerror(errno);
		return nullptr;
	}
	std::ostringstream ss;
	ss << in.rdbuf();
	std::string text = ss.str();
	if (text.find('\0') != std::string::npos) {
		*err = path + ": not a script (binary file)";
		return nullptr;
	}
	return std::make_unique<SourceFile>(path, std::move(text));
}

} // namespace stap_pmu
