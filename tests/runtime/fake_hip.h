/*
 * fake_hip.h — a fake libamdhip64 that tests build with `cc -shared` and hand to the HIP
 * backend through MXJIT_HIP_LIBRARY. FAKE_NDEV picks the device count; device 1 reports
 * FAKE_ARCH1 (default FAKE_ARCH), the others FAKE_ARCH, at an offset no real
 * hipDeviceProp_t layout uses, which the backend's scan must still find. It records what a
 * test checks: the kernarg bytes and grid of the last launch, module loads, and for device
 * binding the calls per device (loads, launches, mallocs) and every hipSetDevice, with the
 * current device kept per thread as HIP does. hipDeviceGetAttribute answers only the CU count
 * (attribute 63: 228, as a partitioned part would).
 *
 * Time is a deterministic per-process clock: each successful launch advances it by
 * 1 us + 8 ns per work-item of its workgroup (FAKE_LAUNCH_NS), and an event records the clock,
 * so an event pair around launches measures exactly that. Kernels are not executed: outputs
 * stay as allocated. FAKE_HIP_FAIL_BLOCK=n (environment, read at the first launch) fails
 * every launch with a workgroup of n work-items after the first one (hipError 99), as a
 * candidate that runs once and then fails under repetition would.
 */
#define FAKE_LAUNCH_NS(block_items) (1000.0 + 8.0 * (double)(block_items))
#ifndef FAKE_HIP_H
#define FAKE_HIP_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char fake_src[] =
    "#include <stdlib.h>\n#include <string.h>\n#include <stdint.h>\n"
    "#ifndef FAKE_ARCH1\n#define FAKE_ARCH1 FAKE_ARCH\n#endif\n"
    "int fake_grid[6]; unsigned char fake_args[256]; size_t fake_args_size; int fake_loads;\n"
    "int fake_setdev_calls, fake_loads_on[8], fake_launches_on[8], fake_mallocs_on[8];\n"
    "static __thread int cur;\n"
    "int hipInit(unsigned f){return 0;}\n"
    "int hipGetDeviceCount(int*n){*n=FAKE_NDEV;return 0;}\n"
    "int hipSetDevice(int d){if(d<0||d>=FAKE_NDEV)return 101;"
    "__atomic_add_fetch(&fake_setdev_calls,1,0);cur=d;return 0;}\n"
    "int hipGetDevice(int*d){*d=cur;return 0;}\n"
    "const char*hipGetErrorString(int e){return \"fake error\";}\n"
    "int hipGetDevicePropertiesR0600(void*p,int d){if(d<0||d>=FAKE_NDEV)return 101;"
    "memset(p,0,1500);strcpy((char*)p,\"AMD Instinct MI300X\");"
    "strcpy((char*)p+1000,d==1?FAKE_ARCH1:FAKE_ARCH);return 0;}\n"
    "int hipModuleLoadData(void**m,const void*img){__atomic_add_fetch(&fake_loads,1,0);"
    "__atomic_add_fetch(&fake_loads_on[cur],1,0);*m=(void*)1;return 0;}\n"
    "int hipModuleUnload(void*m){return 0;}\n"
    "int hipModuleGetFunction(void**f,void*m,const char*n){*f=(void*)2;return 0;}\n"
    "static unsigned long long fake_clock_ns;static int fake_fail_seen;\n"
    "int hipModuleLaunchKernel(void*f,unsigned gx,unsigned gy,unsigned gz,unsigned bx,"
    "unsigned by,unsigned bz,unsigned lds,void*s,void**p,void**extra){"
    "int g[6]={gx,gy,gz,bx,by,bz};memcpy(fake_grid,g,sizeof g);if(gx*gy>5000)return 98;"
    "if(extra[0]!=(void*)1||extra[2]!=(void*)2||extra[4]!=(void*)3)return 1;"
    "static int fail_block=-1;if(__atomic_load_n(&fail_block,0)<0){"
    "const char*fb=getenv(\"FAKE_HIP_FAIL_BLOCK\");__atomic_store_n(&fail_block,fb?atoi(fb):0,0);}"
    "if(fail_block&&(unsigned)fail_block==bx*by*bz&&__atomic_fetch_add(&fake_fail_seen,1,0))"
    "return 99;"
    "__atomic_add_fetch(&fake_launches_on[cur],1,0);"
    "__atomic_add_fetch(&fake_clock_ns,1000ull+8ull*bx*by*bz,0);"
    "fake_args_size=*(size_t*)extra[3];memcpy(fake_args,extra[1],fake_args_size);return 0;}\n"
    "int hipMalloc(void**p,size_t n){__atomic_add_fetch(&fake_mallocs_on[cur],1,0);"
    "*p=malloc(n);return *p?0:2;}\n"
    "int hipFree(void*p){free(p);return 0;}\n"
    "int hipMemcpy(void*d,const void*s,size_t n,int k){memcpy(d,s,n);return 0;}\n"
    "int hipMemset(void*d,int v,size_t n){memset(d,v,n);return 0;}\n"
    "void*fake_memset_stream;int fake_memset_async_calls;\n"
    "int hipMemsetAsync(void*d,int v,size_t n,void*s){memset(d,v,n);fake_memset_stream=s;"
    "__atomic_add_fetch(&fake_memset_async_calls,1,0);return 0;}\n"
    "#ifndef FAKE_NO_MEMSET2D\n"
    "int fake_memset2d_calls;size_t fake_memset2d_pitch;\n"
    "int hipMemset2DAsync(void*d,size_t p,int v,size_t w,size_t h,void*s){"
    "for(size_t i=0;i<h;i++)memset((char*)d+i*p,v,w);fake_memset_stream=s;fake_memset2d_pitch=p;"
    "__atomic_add_fetch(&fake_memset2d_calls,1,0);return 0;}\n"
    "#endif\n"
    "int hipStreamSynchronize(void*s){return 0;}\n"
    "int hipEventCreate(void**e){*e=calloc(1,sizeof(unsigned long long));return *e?0:2;}\n"
    "int hipEventDestroy(void*e){free(e);return 0;}\n"
    "int hipEventRecord(void*e,void*s){"
    "*(unsigned long long*)e=__atomic_load_n(&fake_clock_ns,0);return 0;}\n"
    "int hipEventSynchronize(void*e){return 0;}\n"
    "int hipEventElapsedTime(float*ms,void*a,void*b){*ms=(float)((double)("
    "*(unsigned long long*)b-*(unsigned long long*)a)/1e6);return 0;}\n"
    "int hipDeviceGetAttribute(int*v,int a,int d){if(a!=63)return 1;*v=228;return 0;}\n";

static char lib[256];
/* Extra compiler flags for the next build_fake_devs (-DFAKE_NO_MEMSET2D: no hipMemset2DAsync). */
static const char *fake_cflags = "";

/* Builds the fake with ndev devices (device 1: arch1, others: arch) and points
 * MXJIT_HIP_LIBRARY at it; skips the test without a C compiler. */
static void
build_fake_devs(int ndev, const char *arch, const char *arch1)
{
   char src[256], cmd[1024];
   snprintf(src, sizeof(src), "/tmp/mxjit-fakehip-%d.c", (int)getpid());
   snprintf(lib, sizeof(lib), "/tmp/mxjit-fakehip-%d-%d.so", (int)getpid(), ndev);
   FILE *f = fopen(src, "w");
   cr_assert_not_null(f);
   fputs(fake_src, f);
   fclose(f);
   snprintf(cmd, sizeof(cmd),
            "cc -shared -fPIC %s -DFAKE_NDEV=%d '-DFAKE_ARCH=\"%s\"' '-DFAKE_ARCH1=\"%s\"' "
            "-o %s %s",
            fake_cflags, ndev, arch, arch1, lib, src);
   if (system(cmd) != 0)
      cr_skip_test("no C compiler to build the fake HIP runtime");
   unlink(src);
   setenv("MXJIT_HIP_LIBRARY", lib, 1);
}

static inline void
build_fake_arch(int ndev, const char *arch)
{
   build_fake_devs(ndev, arch, arch);
}

static inline void
build_fake(int ndev)
{
   build_fake_arch(ndev, "gfx942:sramecc+:xnack-");
}

#endif /* FAKE_HIP_H */
