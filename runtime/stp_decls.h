/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_decls.h - the only prototypes that cross layers: functions a runtime
 * header names before the one that defines them. Everything else a header
 * uses is defined in a header before it (tests/runtime/layers.sh checks).
 *
 * stp_entry_dispatch() and stp_entry_one(): the generated file defines them
 * after its probe bodies (STP_ENTRY_DISPATCH, STP_ENTRY_ONE), which come
 * after every runtime header; the ftrace handlers (stp_ftrace.h) inline them.
 */
#ifndef STP_DECLS_H
#define STP_DECLS_H

#ifdef STP_ENTRY_DISPATCH
static __always_inline void stp_entry_dispatch(const struct stp_probe *p);
#ifdef STP_ENTRY_ONE
static __always_inline void stp_entry_one(void);
#endif
#endif

#endif /* STP_DECLS_H */
