// DynamicLibrary moved to core/ (shared with canary/); this header remains so
// collect's includes keep working.
#pragma once

#include "core/dynamic_library.h"
