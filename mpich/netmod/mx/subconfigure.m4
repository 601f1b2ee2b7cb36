[#] start of __file__
dnl MPICH_SUBCFG_AFTER=src/mpid/ch3/channels/nemesis
dnl
dnl ch3:nemesis:mx, the netmod of mx-dpdk (its mpich/ folder).  It links
dnl the static libmyriexpress.a found by pkg-config: set PKG_CONFIG_PATH to
dnl the pkgconfig folder of an mx-dpdk installation (scripts/mpich.sh does).

AC_DEFUN([PAC_SUBCFG_PREREQ_]PAC_SUBCFG_AUTO_SUFFIX,[
    AM_COND_IF([BUILD_CH3_NEMESIS],[
        for net in $nemesis_networks ; do
            AS_CASE([$net],[mx],[build_nemesis_netmod_mx=yes])
        done
    ])
    AM_CONDITIONAL([BUILD_NEMESIS_NETMOD_MX],[test "X$build_nemesis_netmod_mx" = "Xyes"])
])dnl

AC_DEFUN([PAC_SUBCFG_BODY_]PAC_SUBCFG_AUTO_SUFFIX,[
AM_COND_IF([BUILD_NEMESIS_NETMOD_MX],[
    AC_MSG_NOTICE([RUNNING CONFIGURE FOR ch3:nemesis:mx])
    AC_MSG_CHECKING([for mx-dpdk (pkg-config myriexpress)])
    dnl The archive, and DPDK as shared libraries whose PMDs the EAL loads
    dnl as plugins (Debian's way, and mx_pingpong's).  Not "pkg-config
    dnl --static": its DPDK list is "-Wl,--whole-archive -l:librte_*.a
    dnl -Wl,--no-whole-archive", whose -Wl flags libtool moves away from
    dnl the archives when it links libmpi.so, so that no PMD is linked in
    dnl and every rank fails in mx_init ("failed to parse device").
    mx_cflags=`pkg-config --cflags myriexpress 2>/dev/null` || mx_cflags=no
    mx_libdir=`pkg-config --variable=libdir myriexpress 2>/dev/null` || mx_libdir=no
    mx_dpdk=`pkg-config --libs libdpdk numa 2>/dev/null` || mx_libdir=no
    mx_libs="-L$mx_libdir -l:libmyriexpress.a $mx_dpdk -lpthread"
    test "X$mx_libdir" = "Xno" -o "X$mx_libdir" = "X" && mx_libs=no
    if test "X$mx_cflags" = "Xno" -o "X$mx_libs" = "Xno" ; then
        AC_MSG_RESULT([no])
        AC_MSG_ERROR([ch3:nemesis:mx needs mx-dpdk: set PKG_CONFIG_PATH to the folder of myriexpress.pc])
    fi
    AC_MSG_RESULT([$mx_libs])
    PAC_APPEND_FLAG([$mx_cflags],[CPPFLAGS])
    PAC_APPEND_FLAG([$mx_libs],[LIBS])
    AC_CHECK_HEADER([mx_extensions.h],[],
        [AC_MSG_ERROR([mx_extensions.h not found (mx-dpdk)])])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <myriexpress.h>]],
        [[return mx_init() != MX_SUCCESS;]])],[],
        [AC_MSG_ERROR([cannot link a program with libmyriexpress.a])])
    AC_DEFINE([ENABLE_COMM_OVERRIDES], 1, [define to add per-vc function pointers to override send and recv functions])
])dnl end AM_COND_IF(BUILD_NEMESIS_NETMOD_MX,...)
])dnl end _BODY

[#] end of __file__
