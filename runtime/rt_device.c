/* rt_device.c — helpers shared by every device backend. */
#include "rt_device.h"

#include <stdio.h>

mxjit_status
rt_device_set_error(rt_device *dev, mxjit_status st, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(dev->msg, sizeof(dev->msg), fmt, ap);
   va_end(ap);
   return st;
}
