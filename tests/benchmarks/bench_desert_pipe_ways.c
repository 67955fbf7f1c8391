/* How the desert entry's output can reach a judge, timed: the entry writing into /dev/null, a pipe
 * drained by read() or splice(), or a memfd; prints wall time and the CPU (user, system) of the
 * entry and of the reader. Build and run (the entry's binary, the case on stdin):
 *   cc -O2 -o /tmp/pipe_ways tests/benchmarks/bench_desert_pipe_ways.c
 *   /tmp/pipe_ways MODE PIPE_SIZE CHUNK ENTRY < testcases/desert/one-row-26.txt
 * MODE: null, read, splice or memfd; PIPE_SIZE: F_SETPIPE_SZ (0: the default); CHUNK: bytes a read. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <time.h>
#include <sys/resource.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(int argc,char**argv){
  const char*mode=argv[1]; long psz=atol(argv[2]); long chunk=atol(argv[3]);
  double t0=now(); int p[2]; pid_t pid; long total=0;
  if(!strcmp(mode,"null")){pid=fork();if(!pid){int f=open("/dev/null",O_WRONLY);dup2(f,1);execv(argv[4],argv+4);_exit(127);} }
  else if(!strcmp(mode,"memfd")){int m=memfd_create("o",0);pid=fork();if(!pid){dup2(m,1);execv(argv[4],argv+4);_exit(127);} }
  else { pipe(p); if(psz) fcntl(p[0],F_SETPIPE_SZ,psz); pid=fork(); if(!pid){dup2(p[1],1);close(p[0]);close(p[1]);execv(argv[4],argv+4);_exit(127);} close(p[1]);
    char*buf=malloc(chunk); int nul=open("/dev/null",O_WRONLY); long n;
    if(!strcmp(mode,"read")) while((n=read(p[0],buf,chunk))>0){total+=n; volatile char c=buf[n-1];(void)c;}
    else while((n=splice(p[0],0,nul,0,chunk,0))>0) total+=n;
  }
  int st; struct rusage ru; wait4(pid,&st,0,&ru); double t1=now(); struct rusage me; getrusage(RUSAGE_SELF,&me);
  fprintf(stderr,"%s %ld %ld: wall %.3f child u %.3f s %.3f  reader u %.3f s %.3f bytes %ld\n",mode,psz,chunk,t1-t0,
    ru.ru_utime.tv_sec+ru.ru_utime.tv_usec/1e6,ru.ru_stime.tv_sec+ru.ru_stime.tv_usec/1e6,
    me.ru_utime.tv_sec+me.ru_utime.tv_usec/1e6,me.ru_stime.tv_sec+me.ru_stime.tv_usec/1e6,total);
  return 0;}
