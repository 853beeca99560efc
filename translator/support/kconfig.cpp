// kconfig.cpp - a kernel tree's configuration.
#include "translator/support/kconfig.h"

#include <algorithm>

namespace stap_pmu {

namespace {

bool by_name(const std::pair<std::string_view, std::string_view> &a,
	     const std::pair<std::string_view, std::string_view> &b)
{
	return a.first < b.first;
}

} // namespace

KernelConfig KernelConfig::parse(std::string text)
{
	KernelConfig c;
	auto owned = std::make_shared<const std::string>(std::move(text));
	std::string_view rest = *owned;
	while (!rest.empty()) {
		size_t nl = rest.find('\n');
		std::string_view line = rest.substr(0, nl);
		rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
		size_t eq = line.find('=');
		if (line.substr(0, 7) == "CONFIG_" && eq != std::string_view::npos)
			c.entries_.emplace_back(line.substr(0, eq), line.substr(eq + 1));
	}
	c.sorted_ = false; // Kconfig order until the first lookup
	c.texts_.push_back(std::move(owned));
	return c;
}

const std::vector<KernelConfig::Entry> &KernelConfig::index() const
{
	if (sorted_)
		return entries_;
	// of equal names the last line is kept
	std::stable_sort(entries_.begin(), entries_.end(), by_name);
	size_t out = 0;
	for (size_t i = 0; i < entries_.size(); ++i)
		if (i + 1 == entries_.size() || entries_[i + 1].first != entries_[i].first)
			entries_[out++] = entries_[i];
	entries_.resize(out);
	sorted_ = true;
	return entries_;
}

std::optional<std::string_view> KernelConfig::get(std::string_view name) const
{
	const std::vector<Entry> &e = index();
	auto it = std::lower_bound(e.begin(), e.end(), Entry{name, {}}, by_name);
	if (it == e.end() || it->first != name)
		return std::nullopt;
	return it->second;
}

void KernelConfig::set(std::string name, std::string value)
{
	auto owned = std::make_shared<const std::string>(name + value);
	std::string_view all = *owned;
	texts_.push_back(std::move(owned));
	add(all.substr(0, name.size()), all.substr(name.size()));
}

void KernelConfig::add(std::string_view name, std::string_view value)
{
	index();
	auto it = std::lower_bound(entries_.begin(), entries_.end(), Entry{name, {}}, by_name);
	if (it != entries_.end() && it->first == name)
		it->second = value;
	else
		entries_.insert(it, Entry{name, value});
}

} // namespace stap_pmu
