#ifndef TOKENCALL_CLINUX_SHIM_H
#define TOKENCALL_CLINUX_SHIM_H
/* The Linux calls Glibc's Swift module leaves out: epoll for readiness, eventfd for a loop's wake-up, and a
   thread's name (prctl is variadic, so Swift cannot call it). */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>

/* Names the calling thread (the first 15 bytes show in ps and a debugger). */
static inline void tc_name_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }
#endif
