// kconfig.h - a kernel tree's configuration (CONFIG_X=value lines), looked up
// by name.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stap_pmu {

// CONFIG_X -> its value as the file spells it ("y", "m", "\"str\"", "123").
// The entries are views into the file's text, sorted by name (a later line
// for the same option wins) on the first lookup, and found by halving: a
// tree's 8000 options cost one allocation for the text and one for the
// index, where a std::map of strings cost two or three per option to build
// and as many to free (a quarter of a -p3 run), and a run that looks no
// option up (no tapset conditional on one) does not sort them (a fifth of
// what was left). Copies share the text.
class KernelConfig {
public:
	KernelConfig() = default;
	// the CONFIG_ lines of text (auto.conf or .config); other lines ignored
	static KernelConfig parse(std::string text);

	// the value of name, or nullopt when the option is not set
	std::optional<std::string_view> get(std::string_view name) const;
	bool has(std::string_view name) const { return get(name).has_value(); }
	// name set to value (replacing an earlier value)
	void set(std::string name, std::string value);

	size_t size() const { return index().size(); }
	bool empty() const { return entries_.empty(); }

private:
	using Entry = std::pair<std::string_view, std::string_view>;
	void add(std::string_view name, std::string_view value);
	const std::vector<Entry> &index() const; // entries_, sorted

	// the texts the views point into: the file's, then set()'s strings
	std::vector<std::shared_ptr<const std::string>> texts_;
	// in the file's order until index() sorts them by name, names unique
	mutable std::vector<Entry> entries_;
	mutable bool sorted_ = true;
};

} // namespace stap_pmu
