/* placeholder until the owning change lands; replaced wholesale */
#include "cmd.h"
#include <stdio.h>
int
cmd_demo(int argc, char **argv)
{
   fprintf(stderr, "mxjit demo: not built yet\n");
   return 1;
}
