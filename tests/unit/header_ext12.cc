// SPDX-License-Identifier: BSD-3-Clause
// The same MX 1.2 program as header_ext12.c, built as C++.
#include "header_ext12.c"
