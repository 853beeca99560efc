// ast.cpp - small helpers over the syntax tree.
#include "translator/ast.h"

#include "translator/printer.h"

namespace stap_pmu {

std::string probe_point_str(const ProbePoint &pp)
{
	std::string out;
	for (const ProbeComponent &c : pp.components) {
		if (!out.empty())
			out += '.';
		out += c.name;
		if (c.has_arg) {
			out += '(';
			out += c.arg_is_string ? quote_string(c.str_arg) : std::to_string(c.num_arg);
			out += ')';
		}
	}
	return out;
}

std::string quote_string(const std::string &s)
{
	std::string out = "\"";
	for (char c : s) {
		switch (c) {
		case '\n': out += "\\n"; break;
		case '\t': out += "\\t"; break;
		case '\r': out += "\\r"; break;
		case '"': out += "\\\""; break;
		case '\\': out += "\\\\"; break;
		default: out += c;
		}
	}
	return out + "\"";
}

} // namespace stap_pmu
