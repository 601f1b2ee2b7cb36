// SPDX-License-Identifier: BSD-3-Clause
// The same MX 1.2 program as header_mx12.c, built as C++: the header
// declares everything with C linkage, in terms C++ accepts.
#include "header_mx12.c"
