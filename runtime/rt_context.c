/*
 * rt_context.c — mxjit_ctx: options, device selection, the kernel cache and tuned configs.
 * The last-error message every public call leaves behind is per thread (rt_error.c).
 */
#include "rt_abi.h"
#include "rt_int.h"
#include "rt_kernels.h"
#include "rt_config.h"
#include "rt_timing.h"

#include "jt.h"
#include "kc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- status and dtype names ----------------------------------------------------------- */

const char *
mxjit_status_name(mxjit_status st)
{
   switch ((int)st) {
   case MXJIT_ERR_INVALID_ARG_SHAPE: return "MXJIT_ERR_INVALID_ARG_SHAPE";
   case MXJIT_ERR_INVALID_ARG_STRIDE: return "MXJIT_ERR_INVALID_ARG_STRIDE";
   case MXJIT_ERR_INVALID_ARG_DTYPE: return "MXJIT_ERR_INVALID_ARG_DTYPE";
   case MXJIT_ERR_INVALID_ARG_ALIGN: return "MXJIT_ERR_INVALID_ARG_ALIGN";
   case MXJIT_ERR_INVALID_ARG_ALIAS: return "MXJIT_ERR_INVALID_ARG_ALIAS";
   case MXJIT_ERR_NOT_PREPARED:
      return "MXJIT_ERR_NOT_PREPARED";
   case MXJIT_ERR_EMU_FAULT_OOB: return "MXJIT_ERR_EMU_FAULT_OOB";
   case MXJIT_ERR_EMU_FAULT_HAZARD: return "MXJIT_ERR_EMU_FAULT_HAZARD";
   default: break;
   }
   switch (MXJIT_PRIMARY(st)) {
   case MXJIT_OK: return st == MXJIT_OK ? "MXJIT_OK" : "MXJIT_UNKNOWN_STATUS";
   case MXJIT_ERR_INVALID_ARG: return "MXJIT_ERR_INVALID_ARG";
   case MXJIT_ERR_UNSUPPORTED: return "MXJIT_ERR_UNSUPPORTED";
   case MXJIT_ERR_NOMEM: return "MXJIT_ERR_NOMEM";
   case MXJIT_ERR_COMPILE: return "MXJIT_ERR_COMPILE";
   case MXJIT_ERR_LINK: return "MXJIT_ERR_LINK";
   case MXJIT_ERR_CACHE_IO: return "MXJIT_ERR_CACHE_IO";
   case MXJIT_ERR_NO_DEVICE: return "MXJIT_ERR_NO_DEVICE";
   case MXJIT_ERR_DEVICE: return "MXJIT_ERR_DEVICE";
   case MXJIT_ERR_EMU_FAULT: return "MXJIT_ERR_EMU_FAULT";
   case MXJIT_ERR_EMU_UNIMPLEMENTED: return "MXJIT_ERR_EMU_UNIMPLEMENTED";
   case MXJIT_ERR_IO: return "MXJIT_ERR_IO";
   case MXJIT_ERR_INTERNAL: return "MXJIT_ERR_INTERNAL";
   case MXJIT_ERR_CHECK: return "MXJIT_ERR_CHECK";
   default: return "MXJIT_UNKNOWN_STATUS";
   }
}

const char *
mxjit_dtype_name(mxjit_dtype dt)
{
   static const char *const names[] = {
      [MXJIT_DTYPE_U8] = "u8",         [MXJIT_DTYPE_I32] = "i32",
      [MXJIT_DTYPE_I64] = "i64",       [MXJIT_DTYPE_F32] = "f32",
      [MXJIT_DTYPE_BF16] = "bf16",     [MXJIT_DTYPE_F16] = "f16",
      [MXJIT_DTYPE_E4M3] = "e4m3",     [MXJIT_DTYPE_E5M2] = "e5m2",
      [MXJIT_DTYPE_E4M3FNUZ] = "e4m3fnuz", [MXJIT_DTYPE_E5M2FNUZ] = "e5m2fnuz",
      [MXJIT_DTYPE_E2M1X2] = "e2m1x2", [MXJIT_DTYPE_E8M0] = "e8m0",
   };
   if ((unsigned)dt >= sizeof(names) / sizeof(names[0]) || !names[dt])
      return "invalid";
   return names[dt];
}

/* ---- accessors ----------------------------------------------------------------------- */

rt_device *
rt_ctx_device(mxjit_ctx *ctx)
{
   return ctx->dev;
}

mxjit_status
rt_ctx_check(mxjit_ctx *ctx, const char *fn)
{
   if (ctx->dev)
      return MXJIT_OK;
   /* A context whose creation failed remembers why; every later call repeats it. */
   return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                   "%s: ctx was not created successfully (%s); destroy it and create another",
                   fn, ctx->create_err[0] ? ctx->create_err : "no device");
}

/* ---- creation ------------------------------------------------------------------------- */

static const char *
device_kind_name(mxjit_device_kind k)
{
   switch (k) {
   case MXJIT_DEVICE_AUTO: return "auto";
   case MXJIT_DEVICE_HIP: return "hip";
   case MXJIT_DEVICE_EMU: return "emu";
   case MXJIT_DEVICE_HOST: return "host";
   }
   return "?";
}

static void
cache_warn(void *user, const char *msg)
{
   (void)user;
   fprintf(stderr, "mxjit: %s\n", msg);
}

/* The cache: options first, then the environment (STYLE C16: only this caller reads it). */
static mxjit_status
open_cache(mxjit_ctx *ctx, const mxjit_ctx_options *o)
{
   kc_options ko = {
      .dir = o->cache_dir,
      .overlays = o->overlays,
      .max_bytes = o->cache_max_bytes,
      .memory_only = o->no_disk_cache,
      .warn = cache_warn,
   };
   char msg[512] = "";
   mxjit_status st = kc_options_from_env_msg(&ko, msg, sizeof(msg));
   if (st == MXJIT_ERR_CACHE_IO) {
      /* No directory can be derived (no HOME): a working in-process cache beats an error. */
      cache_warn(NULL, msg);
      ko.memory_only = 1;
   } else if (st != MXJIT_OK) {
      return rt_error(ctx, st, "ctx: %s", msg);
   }
   msg[0] = '\0';
   st = kc_open(&ko, &ctx->cache, msg, sizeof(msg));
   if (st != MXJIT_OK)
      return rt_error(ctx, st, "ctx: opening the kernel cache failed: %s", msg);
   return MXJIT_OK;
}

static mxjit_status
create_device(mxjit_ctx *ctx, const mxjit_ctx_options *o)
{
   char msg[1024] = "";
   mxjit_status st = MXJIT_OK;
   const char *hiplib = getenv("MXJIT_HIP_LIBRARY"); /* read once, here only */
   int ordinal = o->binding == MXJIT_BIND_ORDINAL ? o->device_ordinal : -1;

   if (o->device == MXJIT_DEVICE_HOST) {
      ctx->kind = MXJIT_DEVICE_HOST;
      st = dev_host_create(&ctx->dev, msg, sizeof(msg));
   } else if (o->device == MXJIT_DEVICE_HIP) {
      ctx->kind = MXJIT_DEVICE_HIP;
      st = dev_hip_create_lib(hiplib, o->target, ordinal, &ctx->dev, msg, sizeof(msg));
   } else {
      if (o->device == MXJIT_DEVICE_AUTO &&
          dev_hip_create_lib(hiplib, o->target, ordinal, &ctx->dev, msg, sizeof(msg)) == MXJIT_OK &&
          jt_lookup(ctx->dev->target)) {
         ctx->kind = MXJIT_DEVICE_HIP;
      } else {
         /* AUTO: no HIP, no GPU, or a GPU mxjit cannot compile for: the emulator. */
         if (ctx->dev)
            ctx->dev->ops->destroy(ctx->dev);
         ctx->dev = NULL;
         ctx->kind = MXJIT_DEVICE_EMU;
         msg[0] = '\0';
         st = dev_emu_create(o->target ? o->target : "gfx950", o, &ctx->dev, msg, sizeof(msg));
      }
   }
   if (st != MXJIT_OK) {
      ctx->dev = NULL;
      return rt_error(ctx, st, "%s", msg[0] ? msg : "ctx: device creation failed");
   }
   return MXJIT_OK;
}

static mxjit_status
check_options(mxjit_ctx *ctx, const mxjit_ctx_options *o)
{
   if ((unsigned)o->device > MXJIT_DEVICE_HOST)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "ctx: options.device %d is not a mxjit_device_kind; use "
                      "MXJIT_DEVICE_AUTO, _HIP, _EMU or _HOST", (int)o->device);
   if (o->target && !jt_lookup(o->target))
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "ctx: options.target '%s' is not a known target; use gfx942 or gfx950",
                      o->target);
   if ((unsigned)o->jit > MXJIT_JIT_NEVER)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "ctx: options.jit %d is not a mxjit_jit_mode; use MXJIT_JIT_ON or "
                      "MXJIT_JIT_NEVER",
                      (int)o->jit);
   if ((unsigned)o->binding > MXJIT_BIND_ORDINAL)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "ctx: options.binding %d is not a mxjit_device_binding; use "
                      "MXJIT_BIND_CURRENT or MXJIT_BIND_ORDINAL",
                      (int)o->binding);
   if (o->binding == MXJIT_BIND_ORDINAL && o->device_ordinal < 0)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "ctx: options.device_ordinal %d is negative; use a HIP device index "
                      "(0, 1, ...) or MXJIT_BIND_CURRENT",
                      o->device_ordinal);
   if (o->binding != MXJIT_BIND_ORDINAL && o->device_ordinal != 0)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "ctx: options.device_ordinal %d is set but options.binding is not "
                      "MXJIT_BIND_ORDINAL; set both to pick a device",
                      o->device_ordinal);
   if (o->emu_threads < 0)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "ctx: options.emu_threads %d is negative; use 0 (one thread) or more",
                      o->emu_threads);
   if (o->emu_hazards != 0 && o->emu_hazards != 1)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "ctx: options.emu_hazards %d must be 0 (fault) or 1 (ignore)",
                      o->emu_hazards);
   if (o->cache_dir && !o->cache_dir[0])
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "ctx: options.cache_dir is empty; pass NULL for the default directory");
   if (o->check < 0 || o->check > 1)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "ctx: options.check %d must be 0 (off, unless MXJIT_CHECK=1) or 1",
                      o->check);
   return MXJIT_OK;
}

/* MXJIT_CHECK=1 turns check mode on for every context (read here only, STYLE C15). */
static int
check_mode(const mxjit_ctx_options *o)
{
   const char *env = getenv("MXJIT_CHECK");
   return o->check || (env && env[0] && strcmp(env, "0") != 0);
}

/* options.allocator: read by its size like any args struct, both callbacks set, HIP only. */
static mxjit_status
take_allocator(mxjit_ctx *ctx, const mxjit_ctx_options *o)
{
   if (!o->allocator)
      return MXJIT_OK;
   mxjit_status st = RT_ARGS_IN(ctx, "ctx", mxjit_allocator, o->allocator, &ctx->allocator);
   if (st != MXJIT_OK)
      return st;
   if (!ctx->allocator.alloc || !ctx->allocator.free)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "ctx: options.allocator->%s is NULL; set both alloc and free",
                      !ctx->allocator.alloc ? "alloc" : "free");
   if (ctx->kind != MXJIT_DEVICE_HIP)
      return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                      "ctx: options.allocator serves HIP device memory, but this context has "
                      "the %s device (its memory is mxjit's own); pass NULL",
                      device_kind_name(ctx->kind));
   return MXJIT_OK;
}

static mxjit_status
ctx_init(mxjit_ctx *ctx, const mxjit_ctx_options *o)
{
   mxjit_status st = check_options(ctx, o);
   ctx->jit_never = o->jit == MXJIT_JIT_NEVER;
   if (st == MXJIT_OK && !(ctx->counts = calloc(1, sizeof(*ctx->counts))))
      st = rt_error(ctx, MXJIT_ERR_NOMEM, "ctx: out of host memory");
   if (st == MXJIT_OK)
      st = create_device(ctx, o);
   if (st == MXJIT_OK)
      st = take_allocator(ctx, o);
   if (st != MXJIT_OK)
      return st;
   if (ctx->kind == MXJIT_DEVICE_HOST)
      return MXJIT_OK; /* the host device runs scalar C: no targets, no kernels */
   ctx->check = check_mode(o);

   ctx->target = jt_lookup(ctx->dev->target);
   if (!ctx->target)
      return rt_error(ctx, MXJIT_ERR_UNSUPPORTED,
                      "ctx: the %s device is a '%s', which mxjit cannot compile for; "
                      "supported: gfx942, gfx950", device_kind_name(ctx->kind), ctx->dev->target);
   if (o->target && jt_lookup(o->target) != ctx->target)
      return rt_error(ctx, MXJIT_ERR_INVALID_ARG,
                      "ctx: options.target '%s' differs from the %s device's '%s'; "
                      "pass NULL to take it from the device", o->target,
                      device_kind_name(ctx->kind), ctx->dev->target);
   if ((st = open_cache(ctx, o)) != MXJIT_OK)
      return st;
   char msg[512] = "";
   st = rt_config_load(ctx->target, o->config_dir, getenv("MXJIT_CONFIG_DIR"), &ctx->config,
                       msg, sizeof(msg));
   if (st != MXJIT_OK)
      return rt_error(ctx, st, "%s", msg);
   return rt_kernels_create(ctx);
}

mxjit_status
mxjit_ctx_create(const mxjit_ctx_options *opts, mxjit_ctx **out)
{
   if (!out)
      return MXJIT_ERR_INVALID_ARG; /* nowhere to put a message: the status must do */
   *out = NULL;
   mxjit_ctx *ctx = calloc(1, sizeof(*ctx));
   if (!ctx)
      return MXJIT_ERR_NOMEM;
   *out = ctx;
   ctx->id = rt_ctx_new_id();
   mxjit_ctx_options o = {0};
   mxjit_status st = opts ? RT_ARGS_IN(ctx, "ctx", mxjit_ctx_options, opts, &o) : MXJIT_OK;
   if (st == MXJIT_OK)
      st = ctx_init(ctx, &o);
   if (st != MXJIT_OK) {
      /* Keep the message; release everything else so only the shell remains. */
      char err[sizeof(ctx->create_err)];
      snprintf(err, sizeof(err), "%s", mxjit_ctx_last_error(ctx));
      uint64_t id = ctx->id;
      mxjit_ctx_destroy(ctx);
      ctx = calloc(1, sizeof(*ctx));
      *out = ctx;
      if (!ctx)
         return MXJIT_ERR_NOMEM;
      ctx->id = id;
      memcpy(ctx->create_err, err, sizeof(err));
      rt_error(ctx, st, "%s", err);
   }
   return st;
}

void
mxjit_ctx_destroy(mxjit_ctx *ctx)
{
   if (!ctx)
      return;
   if (ctx->ktable)
      rt_kernels_destroy(ctx); /* unloads modules: needs the device */
   if (ctx->dev)
      rt_ctx_workspace_free(ctx, atomic_load(&ctx->ws));
   if (ctx->dev)
      ctx->dev->ops->destroy(ctx->dev);
   if (ctx->cache)
      kc_close(ctx->cache);
   rt_config_free(ctx->config);
   rt_record_free(ctx);
   free(ctx->counts);
   rt_ctx_release_slot(ctx);
   free(ctx);
}

const char *
mxjit_ctx_target(const mxjit_ctx *ctx)
{
   return ctx && ctx->target ? ctx->target->name : NULL;
}

mxjit_device_kind
mxjit_ctx_device(const mxjit_ctx *ctx)
{
   return ctx ? ctx->kind : MXJIT_DEVICE_AUTO;
}

int
mxjit_ctx_device_ordinal(const mxjit_ctx *ctx)
{
   return ctx ? dev_hip_ordinal(ctx->dev) : -1;
}
