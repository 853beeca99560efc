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
};

// Error{what, hint}, for `return fail("cannot read X", "install Y");`.
inline Error fail(std::string what, std::string hint = "")
{
	return Error{std::move(what), std::move(hint)};
}

template <class T> class [[nodiscard]] Result {
public:
	Result(T v) : v_(std::move(v)) {}
	Result(Error e) : v_(std::move(e)) {}

	bool ok() const { return v_.index() == 0; }
	explicit operator bool() const { return ok(); }

	T &value() & { return std::get<0>(v_); }
	const T &value() const & { return std::get<0>(v_); }
	T &&value() && { return std::get<0>(std::move(v_)); }
	T &operator*() & { return value(); }
	const T &operator*() const & { return value(); }
	T *operator->() { return &value(); }
	const T *operator->() const { return &value(); }

	const Error &error() const { return std::get<1>(v_); }

private:
	std::variant<T, Error> v_;
};

// Success or an Error, for functions with nothing to return.
template <> class [[nodiscard]] Result<void> {
public:
	Result() = default;
	Result(Error e) : err_(std::move(e)), ok_(false) {}

	bool ok() const { return ok_; }
	explicit operator bool() const { return ok_; }
	const Error &error() const { return err_; }

private:
	Error err_;
	bool ok_ = true;
};

using Status = Result<void>;

} // namespace stap_pmu
