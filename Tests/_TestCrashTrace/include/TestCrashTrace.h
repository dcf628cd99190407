#ifndef TEST_CRASH_TRACE_H
#define TEST_CRASH_TRACE_H

/// Whether the test process prints an abort's stack itself (`CrashTrace.c`): true once its
/// handler is installed, which happens when the test binary loads.
int test_crash_trace_installed(void);

#endif
