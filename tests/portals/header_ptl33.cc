// SPDX-License-Identifier: BSD-3-Clause
// The same Portals 3.3 program as header_ptl33.c, built as C++.
#include "header_ptl33.c"
