// Cost of one VM exit round trip (cpuid always exits under KVM), and of a trivial syscall, for scale.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
static inline uint64_t rdtsc(void){unsigned lo,hi;__asm__ volatile("rdtsc":"=a"(lo),"=d"(hi));return ((uint64_t)hi<<32)|lo;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(void){
  struct timespec a,b; clock_gettime(CLOCK_MONOTONIC,&a); uint64_t t0=rdtsc(); usleep(100000); uint64_t t1=rdtsc(); clock_gettime(CLOCK_MONOTONIC,&b);
  double tpn=(t1-t0)/((b.tv_sec-a.tv_sec)*1e9+(b.tv_nsec-a.tv_nsec));
  enum{N=20000}; static double c[N], s[N];
  for(int i=0;i<N;i++){unsigned ea=0,eb,ec=0,ed; uint64_t x=rdtsc(); __asm__ volatile("cpuid":"+a"(ea),"=b"(eb),"+c"(ec),"=d"(ed)); c[i]=(rdtsc()-x)/tpn;
    x=rdtsc(); syscall(SYS_getppid); s[i]=(rdtsc()-x)/tpn;}
  qsort(c,N,sizeof(double),cmp); qsort(s,N,sizeof(double),cmp);
  printf("cpuid (VM exit round trip) ns p10/50/90: %.0f/%.0f/%.0f\n",c[N/10],c[N/2],c[9*N/10]);
  printf("getppid syscall ns p10/50/90: %.0f/%.0f/%.0f\n",s[N/10],s[N/2],s[9*N/10]);
}
