/* rt_device.c — helpers shared by every device backend. */
#include "rt_device.h"

#include <stdio.h>

/* A backend's message lives in thread-local storage, not on the device: two threads whose
 * calls fail on one HIP device at once each read their own (rt_error_from_device). */
static _Thread_local char tls_devmsg[1024];

mxjit_status
rt_device_set_error(rt_device *dev, mxjit_status st, const char *fmt, ...)
{
   (void)dev;
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(tls_devmsg, sizeof(tls_devmsg), fmt, ap);
   va_end(ap);
   return st;
}

const char *
rt_device_last_error(const rt_device *dev)
{
   (void)dev;
   return tls_devmsg;
}
