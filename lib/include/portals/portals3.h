/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file portals/portals3.h
 * The name under which most Portals programs include the API
 * (#include <portals/portals3.h>): the same header as <portals3.h>.
 */
#include "../portals3.h"
