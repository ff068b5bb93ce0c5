/*
 * cmd_child.c — `mxjit run` in a child process (cmd_child.h). A child, not a call: the op runs
 * in a fresh process with its own environment (tuned table, cache, miss log), and a crash or
 * a hang of one candidate is a result, not the end of the sweep.
 */
#include "cmd_child.h"

#include "kc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t
mix(uint64_t x)
{
   x ^= x >> 30;
   x *= 0xbf58476d1ce4e5b9ull;
   x ^= x >> 27;
   x *= 0x94d049bb133111ebull;
   return x ^ (x >> 31);
}

static uint64_t
hash_str(const char *s)
{
   uint8_t h[16];
   kc_hash128(s, strlen(s), 0, h);
   uint64_t v;
   memcpy(&v, h, sizeof(v));
   return v;
}

int
cc_make_inputs(const char *cmd, const char *work, const char *tag, const rt_sweep_input *in,
               unsigned nin, uint64_t seed)
{
   for (unsigned i = 0; i < nin; i++) {
      char path[700];
      snprintf(path, sizeof(path), "%s/%s.%s.bin", work, tag, in[i].name);
      FILE *f = fopen(path, "wb");
      uint64_t x = seed ^ hash_str(tag) ^ hash_str(in[i].name);
      for (uint64_t b = 0; f && b < in[i].bytes; b += 8) {
         uint64_t v = mix(x + b);
         fwrite(&v, 1, in[i].bytes - b < 8 ? in[i].bytes - b : 8, f);
      }
      if (!f || fclose(f) != 0) {
         fprintf(stderr, "mxjit %s: cannot write the input %s\n", cmd, path);
         return 1;
      }
   }
   return 0;
}

/* run's text with the placeholders replaced, split at spaces into argv. */
static int
substitute(const char *work, const char *tag, const char *run, char **argv, int max, char *buf,
           size_t cap)
{
   size_t n = 0;
   while (*run && n + 1 < cap) {
      if (*run == '{') {
         const char *e = strchr(run, '}');
         char name[64];
         snprintf(name, sizeof(name), "%.*s", e ? (int)(e - run - 1) : 0, run + 1);
         if (!strncmp(name, "out:", 4))
            n += (size_t)snprintf(buf + n, cap - n, "%s/out.%s.bin", work, name + 4);
         else
            n += (size_t)snprintf(buf + n, cap - n, "%s/%s.%s.bin", work, tag, name);
         run = e ? e + 1 : run + strlen(run);
         continue;
      }
      buf[n++] = *run++;
   }
   buf[n < cap ? n : cap - 1] = '\0';
   int argc = 0;
   char *save = NULL;
   for (char *tok = strtok_r(buf, " ", &save); tok && argc < max; tok = strtok_r(NULL, " ", &save))
      argv[argc++] = tok;
   return argc;
}

int
cc_run(const char *work, const char *tag, const char *run, const char *target, const char *device,
       const char *const *extra, const char *const *env, char *out, size_t cap)
{
   char buf[4096];
   char *argv[72];
   int argc = 0;
   argv[argc++] = "mxjit";
   argv[argc++] = "run";
   argc += substitute(work, tag, run, argv + argc, 60, buf, sizeof(buf));
   argv[argc++] = "--device";
   argv[argc++] = (char *)device;
   argv[argc++] = "--target";
   argv[argc++] = (char *)target;
   for (int i = 0; extra && extra[i] && argc < 71; i++)
      argv[argc++] = (char *)extra[i];
   argv[argc] = NULL;
   int fds[2];
   if (pipe(fds) != 0)
      return -1;
   fflush(NULL);
   pid_t pid = fork();
   if (pid == 0) {
      dup2(fds[1], 1);
      dup2(fds[1], 2);
      close(fds[0]);
      for (const char *const *e = env; e && *e; e++) {
         const char *eq = strchr(*e, '=');
         char name[64];
         snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - *e) : 0, *e);
         if (eq && eq[1])
            setenv(name, eq + 1, 1);
         else
            unsetenv(name);
      }
      /* this very program: the child's `mxjit run` is the same build */
      execv("/proc/self/exe", argv);
      _exit(127);
   }
   close(fds[1]);
   size_t got = 0;
   ssize_t r;
   while (got + 1 < cap &&
          ((r = read(fds[0], out + got, cap - 1 - got)) > 0 || (r < 0 && errno == EINTR)))
      got += r > 0 ? (size_t)r : 0;
   out[got] = '\0';
   close(fds[0]); /* a child still writing gets SIGPIPE */
   int st = 0;
   if (pid < 0 || waitpid(pid, &st, 0) != pid)
      return -1;
   return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
