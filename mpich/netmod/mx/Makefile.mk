## ch3:nemesis:mx, the mx-dpdk netmod (see mpich/README of mx-dpdk).

if BUILD_NEMESIS_NETMOD_MX

mpi_core_sources +=                                 \
    src/mpid/ch3/channels/nemesis/netmod/mx/mx_init.c \
    src/mpid/ch3/channels/nemesis/netmod/mx/mx_send.c \
    src/mpid/ch3/channels/nemesis/netmod/mx/mx_recv.c \
    src/mpid/ch3/channels/nemesis/netmod/mx/mx_poll.c

noinst_HEADERS +=                                   \
    src/mpid/ch3/channels/nemesis/netmod/mx/mx_impl.h

endif BUILD_NEMESIS_NETMOD_MX
