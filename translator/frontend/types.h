// types.h - value types of the language.
#pragma once

namespace stap_pmu {

enum class Type { Unknown, Long, String, Stats, Void };

inline const char *type_name(Type t)
{
	switch (t) {
	case Type::Unknown: return "unknown";
	case Type::Long: return "long";
	case Type::String: return "string";
	case Type::Stats: return "stats";
	case Type::Void: return "void";
	}
	return "unknown";
}

} // namespace stap_pmu
