// procfs.cpp - procfs("NAME").read and procfs("NAME").write (procfs.read and
// procfs.write: the file "command"), optionally .umask(U) before .read or
// .write and .maxsize(N) after .read: a file NAME in the module's
// /proc/<module>/ directory (next to output, status and control, where the
// loader looks) whose read runs the read probe (the reader gets what it sets
// $value to) and whose every write runs the write probe ($value: what was
// written). runtime/stp_procfs.h has the files.
#include "translator/probes/probe_kind.h"

#include <cctype>
#include <cstdio>

namespace stap_pmu {

// the module's own files in /proc/<module>/ (runtime/stp_control.h)
static const char *const reserved_names[] = {"output", "records", "status", "control"};

static constexpr uint32_t max_maxsize = 1u << 20;

static bool check_name(const ProbeComponent &head, Diagnostics &diags, std::string &name)
{
	if (!head.has_arg)
		return true; // procfs.read: "command"
	if (!head.arg_is_string) {
		diags.error(head.arg_loc, "procfs takes a file name string, e.g. procfs(\"stats\")");
		return false;
	}
	name = head.str_arg;
	bool ok = !name.empty() && name.size() <= 64 && name != "." && name != "..";
	for (char ch : name)
		ok = ok && (isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' ||
			    ch == '.');
	if (!ok) {
		diags.error(head.arg_loc, "procfs file name '" + name + "' is not valid",
			    "use up to 64 letters, digits, '_', '-' and '.' (no '/': the files "
			    "live in /proc/<module>/)");
		return false;
	}
	for (const char *r : reserved_names)
		if (name == r) {
			diags.error(head.arg_loc, "procfs file name '" + name +
							  "' is one of the module's own files in /proc/<module>/",
				    "pick another name; output, records, status and control are taken");
			return false;
		}
	return true;
}

// .umask(U) at cs[i], if there: U in out, i moved past it
static bool take_umask(const std::vector<ProbeComponent> &cs, size_t &i, Diagnostics &diags,
		       int &out)
{
	if (i >= cs.size() || cs[i].name != "umask")
		return true;
	const ProbeComponent &u = cs[i];
	if (!u.has_arg || u.arg_is_string || u.num_arg < 0 || u.num_arg > 0777) {
		diags.error(u.has_arg ? u.arg_loc : u.loc,
			    "umask needs a number from 0 to 0777, e.g. .umask(0022)");
		return false;
	}
	out = static_cast<int>(u.num_arg);
	i++;
	return true;
}

// procfs("NAME").umask(0022).read.maxsize(N): the umask in octal, as written
static std::string canonical_name(const ProbePoint &pp, const ResolvedPoint &r)
{
	std::string s = pp.components[0].has_arg ? "procfs(\"" + r.procfs_name + "\")" : "procfs";
	if (r.procfs_umask >= 0) {
		char u[32];
		std::snprintf(u, sizeof u, ".umask(0%03o)", static_cast<unsigned>(r.procfs_umask));
		s += u;
	}
	s += r.kind == ProbeKind::ProcfsRead ? ".read" : ".write";
	if (r.procfs_maxsize)
		s += ".maxsize(" + std::to_string(r.procfs_maxsize) + ")";
	return s;
}

static std::optional<ResolvedPoint> resolve(const ProbePoint &pp, const ProbeContext &ctx)
{
	Diagnostics &diags = ctx.diags;
	const auto &cs = pp.components;
	ResolvedPoint r;
	r.procfs_name = "command";
	if (!check_name(cs[0], diags, r.procfs_name))
		return std::nullopt;
	size_t i = 1;
	if (!take_umask(cs, i, diags, r.procfs_umask))
		return std::nullopt;
	if (i >= cs.size() || (cs[i].name != "read" && cs[i].name != "write") || cs[i].has_arg) {
		diags.error(i < cs.size() ? cs[i].loc : cs[0].loc,
			    "expected .read or .write in '" + probe_point_str(pp) + "'",
			    "procfs(\"NAME\").read, procfs(\"NAME\").write, optionally .umask(U) "
			    "before and .maxsize(N) after .read");
		return std::nullopt;
	}
	r.kind = cs[i].name == "read" ? ProbeKind::ProcfsRead : ProbeKind::ProcfsWrite;
	i++;
	if (i < cs.size() && cs[i].name == "maxsize") {
		const ProbeComponent &m = cs[i];
		if (r.kind == ProbeKind::ProcfsWrite) {
			diags.error(m.loc, "maxsize is for procfs read probes",
				    "a write probe gets each write() in pieces of up to "
				    "MAXSTRINGLEN-1 bytes");
			return std::nullopt;
		}
		if (!m.has_arg || m.arg_is_string || m.num_arg <= 0 || m.num_arg > max_maxsize) {
			diags.error(m.has_arg ? m.arg_loc : m.loc,
				    "maxsize needs a number from 1 to " + std::to_string(max_maxsize) +
					    ", e.g. .maxsize(4096)");
			return std::nullopt;
		}
		r.procfs_maxsize = static_cast<uint32_t>(m.num_arg);
		i++;
	}
	if (i < cs.size()) {
		diags.error(cs[i].loc, "unexpected '." + cs[i].name + "' after '" + cs[i - 1].name +
					       "' in '" + probe_point_str(pp) + "'");
		return std::nullopt;
	}
	r.name = canonical_name(pp, r);
	r.loc = pp.loc;
	return r;
}

const ProbeProvider procfs_provider = {
	"procfs", "procfs(\"NAME\").read[.maxsize(N)], procfs(\"NAME\").write, .umask(U)",
	resolve};

// Without .umask a file is 0400 (read), 0200 (write) or 0600 (both); with
// .umask(U), 0444, 0222 or 0666 without U's bits.
static unsigned file_mode(const ProcfsFile &f, int umask)
{
	bool rd = f.read != SIZE_MAX, wr = f.write != SIZE_MAX;
	if (umask < 0)
		return (rd ? 0400u : 0u) | (wr ? 0200u : 0u);
	return ((rd ? 0444u : 0u) | (wr ? 0222u : 0u)) & ~static_cast<unsigned>(umask);
}

std::vector<ProcfsFile> procfs_files(const std::vector<const ResolvedPoint *> &points,
				     Diagnostics *diags)
{
	std::vector<ProcfsFile> files;
	std::vector<int> umasks;
	for (size_t i = 0; i < points.size(); i++) {
		const ResolvedPoint &p = *points[i];
		if (p.kind != ProbeKind::ProcfsRead && p.kind != ProbeKind::ProcfsWrite)
			continue;
		size_t f = 0;
		while (f < files.size() && files[f].name != p.procfs_name)
			f++;
		if (f == files.size()) {
			files.push_back({p.procfs_name});
			umasks.push_back(-1);
		}
		ProcfsFile &file = files[f];
		bool rd = p.kind == ProbeKind::ProcfsRead;
		size_t &slot = rd ? file.read : file.write;
		if (slot != SIZE_MAX) {
			if (diags)
				diags->error(p.loc, std::string("procfs file '") + file.name +
							    "' already has a " + (rd ? "read" : "write") +
							    " probe",
					     "at " + points[slot]->loc.str() +
						     "; one read and one write probe per file");
			continue;
		}
		if (p.procfs_umask >= 0 && umasks[f] >= 0 && p.procfs_umask != umasks[f] && diags) {
			diags->error(p.loc, "procfs file '" + file.name +
						    "' has two different umasks",
				     "give .umask(U) once, or the same on its read and write probe");
		}
		if (p.procfs_umask >= 0)
			umasks[f] = p.procfs_umask;
		slot = i;
		if (rd)
			file.bufsize = p.procfs_maxsize;
	}
	for (size_t f = 0; f < files.size(); f++)
		files[f].mode = file_mode(files[f], umasks[f]);
	return files;
}

} // namespace stap_pmu
