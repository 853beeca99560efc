// result.h - the one error style after the front end: a function that can
// fail returns Result<T>, a value or an Error that says what failed and
// what to do about it. Script errors go to Diagnostics (frontend/); a
// Result's error is about the machine: files, programs, kernels, guests.
// Nothing below main() exits the process or throws for these.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace stap_pmu {

struct Error {
	std::string what; // one line, no "stap-pmu: error: " prefix
	std::string hint; // what to do about it ("" : nothing to add)
	int code = 0;     // the errno of the system call that failed (0: none)
};

// Error{what, hint}, for `return fail("cannot read X", "install Y");`.
inline Error fail(std::string what, std::string hint = "")
{
	return Error{std::move(what), std::move(hint)};
}

// An Error that keeps the errno, for a caller that words it by the cause
// (ENOENT: "not loaded"); what is usually strerror(code).
inline Error fail_errno(std::string what, int code)
{
	return Error{std::move(what), "", code};
}

// E: Error, or a struct derived from it when the caller needs more than the
// text to report the failure (builder/kbuild.h: make's output and files).
template <class T, class E = Error> class [[nodiscard]] Result {
public:
	Result(T v) : v_(std::move(v)) {}
	Result(E e) : v_(std::move(e)) {}

	bool ok() const { return v_.index() == 0; }
	explicit operator bool() const { return ok(); }

	T &value() & { return std::get<0>(v_); }
	const T &value() const & { return std::get<0>(v_); }
	T &&value() && { return std::get<0>(std::move(v_)); }
	T &operator*() & { return value(); }
	const T &operator*() const & { return value(); }
	T *operator->() { return &value(); }
	const T *operator->() const { return &value(); }

	const E &error() const { return std::get<1>(v_); }

private:
	std::variant<T, E> v_;
};

// Success or an Error, for functions with nothing to return.
template <class E> class [[nodiscard]] Result<void, E> {
public:
	Result() = default;
	Result(E e) : err_(std::move(e)), ok_(false) {}

	bool ok() const { return ok_; }
	explicit operator bool() const { return ok_; }
	const E &error() const { return err_; }

private:
	E err_;
	bool ok_ = true;
};

using Status = Result<void>;

} // namespace stap_pmu
