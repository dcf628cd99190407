// The stack of a thread that aborts in the test process, printed to stderr before Swift's
// backtracer runs (docs/TESTING.md, When the suite crashes).
//
// Swift's backtracer walks a crashed thread by its frame pointers. An abort (glibc's "free():
// invalid next size", a Swift runtime error, a C library's failed assertion) crashes inside
// glibc's pthread_kill, which keeps no frame pointer, so the backtracer shows that one frame and
// nothing of who called abort. glibc's backtrace() unwinds by the call frame information every
// library carries, through abort and raise to the caller. The lines it prints are
// "file(+offset)[address]"; Tests/run-suite.sh turns the test binary's offsets into names.

#define _GNU_SOURCE
#include "TestCrashTrace.h"

#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/syscall.h>
static long thread_id(void) { return (long)syscall(SYS_gettid); }
#else
#include <pthread.h>
static long thread_id(void) {
  uint64_t id = 0;
  pthread_threadid_np(NULL, &id);
  return (long)id;
}
#endif

static struct sigaction previous;
static int installed;

static void say(const char *text) { (void)!write(STDERR_FILENO, text, strlen(text)); }

static void say_number(long value) {
  char digits[24];
  int at = sizeof digits;
  digits[--at] = 0;
  do { digits[--at] = (char)('0' + value % 10); value /= 10; } while (value > 0 && at > 0);
  say(digits + at);
}

static void on_abort(int signal, siginfo_t *info, void *context) {
  void *frames[48];
  int count = backtrace(frames, 48);
  say("\n*** test-crash-trace: SIGABRT in thread ");
  say_number(thread_id());
  say(", its stack (glibc's backtrace):\n");
  backtrace_symbols_fd(frames, count, STDERR_FILENO);
  say("*** test-crash-trace: end\n");
  // On to the handler this one replaced (Swift's backtracer, for every thread's stack), with the
  // same context; it ends the process. Without one, the default action, once this returns.
  sigaction(SIGABRT, &previous, NULL);
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
  }
}

// Runs when the test binary loads, after the Swift runtime (a library it links) installed its
// handlers. backtrace() is called once here: its first call loads libgcc's unwinder, which
// allocates, and an abort from inside malloc may hold malloc's lock.
__attribute__((constructor)) static void install(void) {
  void *warm[2];
  (void)backtrace(warm, 2);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_abort;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGABRT, &action, &previous) == 0) installed = 1;
}

int test_crash_trace_installed(void) { return installed; }
