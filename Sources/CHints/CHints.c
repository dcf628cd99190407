// CHints is header-only (include/CHints.h); SwiftPM wants one source file in a C target.
#include "CHints.h"
