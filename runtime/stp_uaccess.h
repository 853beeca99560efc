/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_uaccess.h - reading memory a script names by address: user_string*,
 * user_long and friends (copy_from_user_nofault: the current task's user
 * memory, only what is resident; pagefaults stay disabled, so nothing
 * sleeps) and the kernel_string* forms beyond kernel_string(addr)
 * (copy_from_kernel_nofault). Strings are read page by page, so a string
 * that ends before an unmapped page reads fine.
 */
#ifndef STP_UACCESS_H
#define STP_UACCESS_H

/* "user <what> copy fault at 0x..." as a script error */
static __maybe_unused void stp_user_fault(struct stp_context *c, const char *what,
					  unsigned long addr)
{
	stp_errorf(c, "user %s copy fault at 0x%lx", what, addr);
}

/*
 * At most len (< STP_MAXSTRINGLEN) bytes of the string at addr into dst,
 * NUL-terminated. False, dst "" and *bad the faulting address on a fault.
 */
static __maybe_unused bool stp_copy_string(char *dst, unsigned long addr,
					   size_t len, bool user, unsigned long *bad)
{
	size_t n = 0, chunk;
	unsigned long a;
	long r;

	while (n < len) {
		a = addr + n;
		chunk = min_t(size_t, len - n, PAGE_SIZE - offset_in_page(a));
		if (a < PAGE_SIZE)
			r = -EFAULT;
		else if (user)
			r = copy_from_user_nofault(dst + n, (const void __user *)a, chunk);
		else
			r = copy_from_kernel_nofault(dst + n, (const void *)a, chunk);
		if (r) {
			dst[0] = '\0';
			*bad = a;
			return false;
		}
		if (memchr(dst + n, '\0', chunk))
			return true;
		n += chunk;
	}
	dst[n] = '\0';
	return true;
}

/* a script's n for the *_n forms: 0..STP_MAXSTRINGLEN - 1 */
static inline size_t stp_string_len(s64 n)
{
	if (n <= 0)
		return 0;
	return min_t(s64, n, STP_MAXSTRINGLEN - 1);
}

/*
 * kernel_string(addr, err_msg), kernel_string_n(addr, n): a fault is an
 * error unless err (not NULL) is given, which is returned instead
 */
static __maybe_unused const char *stp_kernel_string_n(struct stp_context *c,
						      char *dst, s64 addr, s64 n,
						      const char *err)
{
	unsigned long bad = 0;

	if (stp_copy_string(dst, addr, stp_string_len(n), false, &bad))
		return dst;
	if (err)
		return err;
	if (!c->error)
		stp_tvar_fault(c, bad);
	return dst;
}

/* user_string(addr[, err_msg]), user_string_n(addr, n[, err_msg]) */
static __maybe_unused const char *stp_user_string_n(struct stp_context *c,
						    char *dst, s64 addr, s64 n,
						    const char *err)
{
	unsigned long bad = 0;

	if (stp_copy_string(dst, addr, stp_string_len(n), true, &bad))
		return dst;
	if (err)
		return err;
	stp_user_fault(c, "string", bad);
	return dst;
}

/* user_string_warn(addr), user_string_n_warn(addr, n): a fault is a warning
 * and "<unknown>" */
static __maybe_unused const char *stp_user_string_warn(struct stp_context *c,
						       char *dst, s64 addr, s64 n)
{
	unsigned long bad = 0;
	char msg[64];

	if (stp_copy_string(dst, addr, stp_string_len(n), true, &bad))
		return dst;
	scnprintf(msg, sizeof(msg), "user string copy fault at 0x%lx", bad);
	stp_warn(c, msg);
	return "<unknown>";
}

/*
 * user_string_quoted(addr), kernel_string_quoted(addr): at most len bytes
 * of the string in double quotes with text_str's escapes; "NULL" for
 * address 0 and the address in hex when it cannot be read, never an error
 */
static __maybe_unused const char *stp_string_quoted(char *dst, s64 addr, size_t len,
						    bool user)
{
	char raw[STP_MAXSTRINGLEN];
	unsigned long bad = 0;

	if (!addr)
		return "NULL";
	if (!stp_copy_string(raw, addr, len, user, &bad)) {
		scnprintf(dst, STP_MAXSTRINGLEN, "0x%lx", (unsigned long)addr);
		return dst;
	}
	return stp_text_strn(dst, raw, 0, 1);
}

/*
 * user_long(addr) and friends: size bytes at a user address, sign-extended
 * when is_signed. A fault gives 0 (SystemTap's user_* forms), or an
 * error with must (the user_*_error forms).
 */
static __maybe_unused s64 stp_user_read(struct stp_context *c, s64 addr,
					unsigned int size, int is_signed, int must)
{
	u64 v = 0;

	if ((unsigned long)addr < PAGE_SIZE ||
	    copy_from_user_nofault(&v, (const void __user *)(unsigned long)addr, size)) {
		if (must)
			stp_user_fault(c, size == 1 ? "char" : size == 2 ? "short" :
				       size == 4 ? "int" : "long", addr);
		return 0;
	}
	return stp_tvar_extend(v, size, is_signed);
}

#endif /* STP_UACCESS_H */
