/* placeholder until the owning change lands; replaced wholesale */
#include "cmd.h"
#include <stdio.h>
int
cmd_compile(int argc, char **argv)
{
   fprintf(stderr, "mxjit compile: not built yet\n");
   return 1;
}
int
cmd_dis(int argc, char **argv)
{
   fprintf(stderr, "mxjit dis: not built yet\n");
   return 1;
}
