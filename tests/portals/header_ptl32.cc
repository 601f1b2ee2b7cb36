// SPDX-License-Identifier: BSD-3-Clause
// The same Portals 3.2 program as header_ptl32.c, built as C++: the
// header declares everything with C linkage, in terms C++ accepts.
#include "header_ptl32.c"
