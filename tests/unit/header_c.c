/* Each public header compiles on its own, first, in C (and in C++ below). */
#include <myriexpress.h>
#include <mx_extensions.h>

int
main(void)
{
	mx_status_t st = { MX_STATUS_SUCCESS, { { 0, 0 } }, 0, 0, 0, 0 };

	return st.code == MX_STATUS_SUCCESS && MX_API == 0x301 ? 0 : 1;
}
