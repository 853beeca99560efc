// source.cpp - script text and positions.
#include "translator/frontend/source.h"

#include <cerrno>
#include <filesystem>
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

Status check_script_size(const std::string &name, size_t bytes)
{
	if (bytes <= max_script_bytes)
		return {};
	return fail(name + ": script is " + std::to_string(bytes) + " bytes, more than the limit of " +
	       std::to_string(max_script_bytes >> 20) + " MiB");
}

Result<std::unique_ptr<SourceFile>> read_source_file(const std::string &path)
{
	std::error_code ec;
	if (std::filesystem::is_directory(path, ec))
		return fail(path + ": is a directory, not a script");
	std::ifstream in(path, std::ios::binary);
	if (!in)
		return fail(path + ": cannot open: " + std::strerror(errno));
	// Check the size before reading: a huge file is refused, not slurped.
	in.seekg(0, std::ios::end);
	std::streamoff size = in.tellg();
	in.seekg(0, std::ios::beg);
	if (size > 0)
		if (Status st = check_script_size(path, static_cast<size_t>(size)); !st)
			return st.error();
	std::ostringstream ss;
	ss << in.rdbuf();
	std::string text = ss.str();
	if (Status st = check_script_size(path, text.size()); !st) // pipes and /proc files
		return st.error();
	if (text.find('\0') != std::string::npos)
		return fail(path + ": not a script (binary file)");
	return std::make_unique<SourceFile>(path, std::move(text));
}

} // namespace stap_pmu
