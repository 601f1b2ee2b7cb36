// The public headers compile on their own in C++ and keep C linkage.
#include <myriexpress.h>
#include <mx_extensions.h>

int
main()
{
	mx_return_t (*init)(void) = mx_init;
	mx_status_t st = {};

	return init != nullptr && st.code == MX_STATUS_SUCCESS ? 0 : 1;
}
