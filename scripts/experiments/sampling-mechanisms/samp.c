// Sampling-mechanism feasibility experiment for perfkit Probe.
// Build: gcc -O2 -pthread -fno-omit-frame-pointer -fno-optimize-sibling-calls -o samp samp.c
//
// A target thread (pinned to CPU 1) runs a fixed busy loop 32 frames deep; the loop reads the TSC
// every iteration and records every gap > GAP_THR (time the thread did not run user code). A
// signal handler (frame-pointer walk of <=32 frames into a per-thread ring, a few words, counter)
// is driven by one of several mechanisms:
//   A  another thread (CPU 0) sends rt_tgsigqueueinfo and waits for the answer
//   B  timer_create(thread CPU clock of target, SIGEV_THREAD_ID -> target)
//   C  perf_event_open SW cpu-clock / task-clock on the target tid, O_ASYNC+F_SETSIG+F_SETOWN_EX,
//      or attr.sigtrap
//   D  timer_create(CLOCK_MONOTONIC, SIGEV_THREAD_ID -> target), armed from CPU 0
// Per trial: wall time of the fixed loop, thread CPU time, samples in the window, and for every
// sample the gap containing its handler entry (= the time the target lost to that sample).
//
// Modes: ./samp run <reps> <outdir>     full interleaved experiment
//        ./samp perm                    which mechanisms can be set up (for non-root / paranoid tests)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
static inline uint64_t rdtsc(void) {
    unsigned lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}
static double tsc_per_ns = 2.596;
static uint64_t now_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static pid_t gettid_(void) { return (pid_t)syscall(SYS_gettid); }
static void pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof s, &s);
}

static int SIG_SAMPLE;

// ---------------------------------------------------------------- handler side (target thread)
#define RING 65536
#define MAXD 32
typedef struct {
    uint64_t t_in, t_out;
    int depth, code, overrun, pad;
    uintptr_t pcs[MAXD];
} rec_t;
static rec_t ring[RING];
static volatile unsigned ring_n;
static uintptr_t stack_lo, stack_hi;
static _Atomic uint64_t answered;  // A: last generation answered
static sem_t answer_sem;
static volatile int use_sem;
static struct perf_event_mmap_page *volatile perf_mp;
static volatile int perf_fd_cur = -1, perf_refresh;

static void handler(int sig, siginfo_t *si, void *ucv) {
    uint64_t t0 = rdtsc();
    int saved = errno;
    (void)sig;
    ucontext_t *uc = ucv;
    unsigned i = ring_n;
    rec_t *r = &ring[i & (RING - 1)];
    r->t_in = t0;
    r->code = si->si_code;
    r->overrun = (si->si_code == SI_TIMER) ? si->si_overrun : 0;
    uintptr_t fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
    int d = 0;
    r->pcs[d++] = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    while (d < MAXD && fp >= stack_lo && fp + 16 <= stack_hi && (fp & 7) == 0) {
        uintptr_t *f = (uintptr_t *)fp;
        uintptr_t next = f[0], ret = f[1];
        if (!ret) break;
        r->pcs[d++] = ret;
        if (next <= fp) break;
        fp = next;
    }
    r->depth = d;
    struct perf_event_mmap_page *mp = perf_mp;
    if (mp) {  // consume the (empty) records so the ring never fills
        uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
        __atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
    }
    if (perf_refresh && perf_fd_cur >= 0) ioctl(perf_fd_cur, PERF_EVENT_IOC_REFRESH, 1);
    r->t_out = rdtsc();
    ring_n = i + 1;
    if (si->si_code == SI_QUEUE) {
        atomic_store_explicit(&answered, (uint64_t)(uintptr_t)si->si_value.sival_ptr, memory_order_release);
        if (use_sem) sem_post(&answer_sem);
    }
    errno = saved;
}

// ---------------------------------------------------------------- target thread
#define MAXG 200000
static uint64_t gap_s[MAXG], gap_e[MAXG];
static int ngap;
static uint64_t GAP_THR;  // tsc ticks
static volatile uint64_t sink;
static uint64_t ITERS = 10000000;

NOINLINE static void work(void) {
    uint64_t prev = rdtsc(), x = sink | 1;
    int ng = 0;
    for (uint64_t i = 0; i < ITERS; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        x ^= x >> 29;
        uint64_t t = rdtsc();
        if (__builtin_expect(t - prev > GAP_THR, 0)) {
            if (ng < MAXG) {
                gap_s[ng] = prev;
                gap_e[ng] = t;
                ng++;
            }
        }
        prev = t;
    }
    ngap = ng;
    sink = x;
}
NOINLINE static void recurse(int depth) {
    if (depth > 0)
        recurse(depth - 1);
    else
        work();
    __asm__ volatile("" ::: "memory");
}

static volatile pid_t target_tid;
static pthread_t target_thread;
static _Atomic int go_seq, done_seq, quit;
static uint64_t tr_wall0, tr_wall1, tr_cpu0, tr_cpu1, tr_tsc0, tr_tsc1;
static unsigned tr_ring0, tr_ring1;

static void *target_main(void *arg) {
    (void)arg;
    pin(1);
    target_tid = gettid_();
    pthread_attr_t a;
    pthread_getattr_np(pthread_self(), &a);
    void *addr;
    size_t sz;
    pthread_attr_getstack(&a, &addr, &sz);
    stack_lo = (uintptr_t)addr;
    stack_hi = stack_lo + sz;
    int seen = 0;
    for (;;) {
        int g;
        while ((g = atomic_load(&go_seq)) == seen) {
            if (atomic_load(&quit)) return NULL;
            __builtin_ia32_pause();
        }
        seen = g;
        tr_ring0 = ring_n;
        tr_cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
        tr_wall0 = now_ns(CLOCK_MONOTONIC);
        tr_tsc0 = rdtsc();
        recurse(32);
        tr_tsc1 = rdtsc();
        tr_wall1 = now_ns(CLOCK_MONOTONIC);
        tr_cpu1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
        tr_ring1 = ring_n;
        atomic_store(&done_seq, g);
    }
}

// ---------------------------------------------------------------- sender thread (method A)
static _Atomic int sender_on, sender_busy;
static volatile int sender_variant;  // 0 spin-pace+spin-wait, 1 sleep+spin, 2 sleep+probe-wait, 3 sleep+sem, 4 no wait
static volatile long sender_period;
#define MAXR 400000
static uint64_t rtt[MAXR], sendt[MAXR];
static volatile int nrtt;
static int nlost;

static void *sender_main(void *arg) {
    (void)arg;
    pin(0);
    uint64_t gen = 0;
    for (;;) {
        while (!atomic_load(&sender_on)) {
            if (atomic_load(&quit)) return NULL;
            usleep(100);
        }
        atomic_store(&sender_busy, 1);
        int v = sender_variant;
        long period = sender_period;
        use_sem = (v == 2 || v == 3);
        pid_t pid = getpid(), tid = target_tid;
        while (atomic_load(&sender_on)) {
            gen++;
            siginfo_t info;
            memset(&info, 0, sizeof info);
            info.si_signo = SIG_SAMPLE;
            info.si_code = SI_QUEUE;
            info.si_pid = pid;
            info.si_uid = getuid();
            info.si_value.sival_ptr = (void *)(uintptr_t)gen;
            uint64_t t0 = rdtsc();
            syscall(SYS_rt_tgsigqueueinfo, pid, tid, SIG_SAMPLE, &info);
            uint64_t t1 = rdtsc();
            uint64_t deadline = t0 + (uint64_t)(50e6 * tsc_per_ns);
            int ok = (v == 4);  // 4: fire and forget (answer goes to the ring only)
            if (v <= 2) {
                uint64_t spin_until = (v == 2) ? t0 + (uint64_t)(20000 * tsc_per_ns) : deadline;
                while (rdtsc() < spin_until) {
                    if (atomic_load_explicit(&answered, memory_order_acquire) == gen) {
                        ok = 1;
                        break;
                    }
                    __builtin_ia32_pause();
                }
            }
            if (!ok && (v == 2 || v == 3)) {
                for (;;) {
                    if (atomic_load(&answered) == gen) {
                        ok = 1;
                        break;
                    }
                    struct timespec ts;
                    clock_gettime(CLOCK_REALTIME, &ts);
                    ts.tv_nsec += 50000000;
                    if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
                    if (sem_timedwait(&answer_sem, &ts) != 0 && errno == ETIMEDOUT) break;
                }
            }
            uint64_t t2 = rdtsc();
            if (ok && nrtt < MAXR) {
                rtt[nrtt] = t2 - t0;
                sendt[nrtt] = t1 - t0;
                nrtt++;
            } else if (!ok)
                nlost++;
            if (v == 0 || period < 200000) {
                uint64_t next = t0 + (uint64_t)(period * tsc_per_ns);
                while (rdtsc() < next) __builtin_ia32_pause();
            } else {
                struct timespec ts = {0, period};
                clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
            }
        }
        if (use_sem)
            while (sem_trywait(&answer_sem) == 0) {
            }
        use_sem = 0;
        atomic_store(&sender_busy, 0);
    }
}

// ---------------------------------------------------------------- methods
enum { K_NONE, K_A, K_B, K_C, K_D };
enum { C_MMAP, C_NOMMAP, C_REFRESH, C_SIGTRAP };
typedef struct {
    const char *name;
    int kind;
    long period_ns;
    int variant;  // A: sender variant; C: delivery
    int config;   // C: PERF_COUNT_SW_*
} method_t;

static method_t methods[] = {
    {"none", K_NONE, 0, 0, 0},
    {"A_50us_spin", K_A, 50000, 0, 0},
    {"A_1ms_spin", K_A, 1000000, 1, 0},
    {"A_1ms_probe", K_A, 1000000, 2, 0},
    {"A_1ms_sem", K_A, 1000000, 3, 0},
    {"A_1ms_fire", K_A, 1000000, 4, 0},
    {"A_50us_fire", K_A, 50000, 4, 0},
    {"B_thrcpu_1ms", K_B, 1000000, 0, 0},
    {"C_cpuclk_1ms_mmap", K_C, 1000000, C_MMAP, PERF_COUNT_SW_CPU_CLOCK},
    {"C_cpuclk_50us_mmap", K_C, 50000, C_MMAP, PERF_COUNT_SW_CPU_CLOCK},
    {"C_taskclk_1ms_mmap", K_C, 1000000, C_MMAP, PERF_COUNT_SW_TASK_CLOCK},
    {"C_taskclk_50us_mmap", K_C, 50000, C_MMAP, PERF_COUNT_SW_TASK_CLOCK},
    {"C_cpuclk_50us_nommap", K_C, 50000, C_NOMMAP, PERF_COUNT_SW_CPU_CLOCK},
    {"C_cpuclk_50us_refresh", K_C, 50000, C_REFRESH, PERF_COUNT_SW_CPU_CLOCK},
    {"C_cpuclk_1ms_sigtrap", K_C, 1000000, C_SIGTRAP, PERF_COUNT_SW_CPU_CLOCK},
    {"C_cpuclk_50us_sigtrap", K_C, 50000, C_SIGTRAP, PERF_COUNT_SW_CPU_CLOCK},
    {"D_mono_1ms", K_D, 1000000, 0, 0},
    {"D_mono_50us", K_D, 50000, 0, 0},
};
#define NM ((int)(sizeof methods / sizeof methods[0]))

static timer_t cur_timer;
static int cur_fd = -1;
static void *cur_map;
static const size_t MAPSZ = 2 * 4096;

static int perf_open(const method_t *m, pid_t tid, int verbose) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = (uint64_t)m->config;
    a.sample_period = (uint64_t)m->period_ns;
    a.sample_type = 0;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1;
    a.wakeup_events = 1;
    if (m->variant == C_SIGTRAP) {
        a.sigtrap = 1;
        a.remove_on_exec = 1;
        a.sig_data = 0x5eed;
    }
    int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        if (verbose) fprintf(stderr, "%s: perf_event_open: %s\n", m->name, strerror(errno));
        return -1;
    }
    if (m->variant == C_MMAP) {
        cur_map = mmap(NULL, MAPSZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (cur_map == MAP_FAILED) {
            if (verbose) fprintf(stderr, "%s: mmap: %s\n", m->name, strerror(errno));
            cur_map = NULL;
            close(fd);
            return -1;
        }
    }
    if (m->variant != C_SIGTRAP) {
        struct f_owner_ex own = {F_OWNER_TID, tid};
        if (fcntl(fd, F_SETOWN_EX, &own) != 0 || fcntl(fd, F_SETSIG, SIG_SAMPLE) != 0 ||
            fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
            if (verbose) fprintf(stderr, "%s: fcntl: %s\n", m->name, strerror(errno));
            close(fd);
            return -1;
        }
    }
    cur_fd = fd;
    perf_fd_cur = fd;
    perf_mp = cur_map;
    perf_refresh = (m->variant == C_REFRESH);
    ioctl(fd, PERF_EVENT_IOC_RESET, 0);
    if (m->variant == C_REFRESH)
        ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
    else
        ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    return 0;
}

static int setup(const method_t *m, int verbose) {
    pid_t tid = target_tid;
    switch (m->kind) {
    case K_NONE:
        return 0;
    case K_A:
        nrtt = 0;
        nlost = 0;
        sender_variant = m->variant;
        sender_period = m->period_ns;
        atomic_store(&sender_on, 1);
        return 0;
    case K_B:
    case K_D: {
        clockid_t c = CLOCK_MONOTONIC;
        if (m->kind == K_B && pthread_getcpuclockid(target_thread, &c) != 0) return -1;
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = SIG_SAMPLE;
        ev._sigev_un._tid = tid;
        if (timer_create(c, &ev, &cur_timer) != 0) {
            if (verbose) fprintf(stderr, "%s: timer_create: %s\n", m->name, strerror(errno));
            return -1;
        }
        struct itimerspec its = {{0, m->period_ns}, {0, m->period_ns}};
        timer_settime(cur_timer, 0, &its, NULL);
        return 0;
    }
    case K_C:
        return perf_open(m, tid, verbose);
    }
    return -1;
}

static void teardown(const method_t *m) {
    switch (m->kind) {
    case K_A:
        atomic_store(&sender_on, 0);
        while (atomic_load(&sender_busy)) __builtin_ia32_pause();
        break;
    case K_B:
    case K_D:
        timer_delete(cur_timer);
        break;
    case K_C:
        if (cur_fd >= 0) {
            ioctl(cur_fd, PERF_EVENT_IOC_DISABLE, 0);
            perf_mp = NULL;
            perf_refresh = 0;
            perf_fd_cur = -1;
            if (cur_map) munmap(cur_map, MAPSZ);
            cur_map = NULL;
            close(cur_fd);
            cur_fd = -1;
        }
        break;
    }
}

// /proc/interrupts: LOC RES CAL IWI for CPU0, CPU1
static const char *IRQN[] = {"LOC:", "RES:", "CAL:", "IWI:"};
static void read_irqs(long v[4][2]) {
    FILE *f = fopen("/proc/interrupts", "r");
    char line[512];
    memset(v, 0, sizeof(long) * 8);
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ') p++;
        for (int k = 0; k < 4; k++)
            if (!strncmp(p, IRQN[k], 4)) sscanf(p + 4, "%ld %ld", &v[k][0], &v[k][1]);
    }
    fclose(f);
}


static FILE *ftr, *fsm, *frt, *fgp;
static char gap_has[MAXG];

static void run_trial(int rep, int mi) {
    const method_t *m = &methods[mi];
    if (setup(m, rep == 0) != 0) {
        fprintf(ftr, "%d\t%s\tSETUP_FAILED\n", rep, m->name);
        return;
    }
    long irq0[4][2], irq1[4][2];
    unsigned ringall0 = ring_n;
    read_irqs(irq0);
    usleep(2000);  // let the mechanism reach steady state (target spins meanwhile)
    int g = atomic_load(&go_seq) + 1;
    atomic_store(&go_seq, g);
    while (atomic_load(&done_seq) != g) usleep(1000);
    read_irqs(irq1);
    unsigned ringall1 = ring_n;
    teardown(m);
    usleep(3000);  // stragglers
    // match samples to gaps
    uint64_t wall = tr_wall1 - tr_wall0, cpu = tr_cpu1 - tr_cpu0;
    uint64_t longgaps = 0;
    for (int i = 0; i < ngap; i++)
        if ((gap_e[i] - gap_s[i]) / tsc_per_ns > 200000) longgaps += gap_e[i] - gap_s[i];
    int n = 0, matched = 0, ovr = 0;
    uint64_t prev_in = 0;
    int gi = 0;
    memset(gap_has, 0, (size_t)ngap);
    for (unsigned k = tr_ring0; k != tr_ring1; k++) {
        rec_t *r = &ring[k & (RING - 1)];
        if (r->t_in < tr_tsc0 || r->t_in > tr_tsc1) continue;
        n++;
        ovr += r->overrun;
        while (gi < ngap && gap_e[gi] < r->t_in) gi++;
        double gap = -1, pre = -1, post = -1;
        if (gi < ngap && gap_s[gi] <= r->t_in && r->t_out <= gap_e[gi]) {
            matched++;
            gap_has[gi] = 1;
            gap = (gap_e[gi] - gap_s[gi]) / tsc_per_ns;
            pre = (r->t_in - gap_s[gi]) / tsc_per_ns;
            post = (gap_e[gi] - r->t_out) / tsc_per_ns;
        }
        double hd = (r->t_out - r->t_in) / tsc_per_ns;
        double iv = prev_in ? (r->t_in - prev_in) / tsc_per_ns : -1;
        prev_in = r->t_in;
        fprintf(fsm, "%d\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t%d\t%d\n", rep, m->name, gap, hd, pre, post, iv, r->overrun,
                r->depth, r->code);
    }
    // non-sample gaps (ticks etc.)
    for (int i = 0; i < ngap; i++)
        if (!gap_has[i]) fprintf(fgp, "%d\t%s\t%.0f\n", rep, m->name, (gap_e[i] - gap_s[i]) / tsc_per_ns);
    fprintf(ftr, "%d\t%s\t%lu\t%lu\t%lu\t%d\t%d\t%d\t%d\t%u", rep, m->name, (unsigned long)wall,
            (unsigned long)(longgaps / tsc_per_ns), (unsigned long)cpu, n, matched, ovr, ngap, ringall1 - ringall0);
    for (int k = 0; k < 4; k++) fprintf(ftr, "\t%ld\t%ld", irq1[k][0] - irq0[k][0], irq1[k][1] - irq0[k][1]);
    fprintf(ftr, "\t%d\t%d\n", m->kind == K_A ? nrtt : 0, m->kind == K_A ? nlost : 0);
    if (m->kind == K_A)
        for (int i = 0; i < nrtt; i++)
            fprintf(frt, "%d\t%s\t%.0f\t%.0f\n", rep, m->name, rtt[i] / tsc_per_ns, sendt[i] / tsc_per_ns);
    fflush(NULL);
}

static void calibrate(void) {
    uint64_t w0 = now_ns(CLOCK_MONOTONIC), t0 = rdtsc();
    usleep(200000);
    uint64_t w1 = now_ns(CLOCK_MONOTONIC), t1 = rdtsc();
    tsc_per_ns = (double)(t1 - t0) / (double)(w1 - w0);
    GAP_THR = (uint64_t)(300 * tsc_per_ns);
}

static void install(int sig) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

int main(int argc, char **argv) {
    SIG_SAMPLE = SIGRTMIN + 7;
    install(SIG_SAMPLE);
    install(SIGTRAP);
    sem_init(&answer_sem, 0, 0);
    calibrate();
    pin(0);
    pthread_create(&target_thread, NULL, target_main, NULL);
    pthread_t st;
    pthread_create(&st, NULL, sender_main, NULL);
    while (!target_tid) usleep(100);
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    const char *out = argc > 3 ? argv[3] : ".";
    double trial_ms = argc > 4 ? atof(argv[4]) : 120;

    // calibrate ITERS for trial_ms
    ITERS = 2000000;
    {
        int g = atomic_load(&go_seq) + 1;
        atomic_store(&go_seq, g);
        while (atomic_load(&done_seq) != g) usleep(1000);
        double ns = (double)(tr_cpu1 - tr_cpu0);
        ITERS = (uint64_t)(ITERS * trial_ms * 1e6 / ns);
    }
    fprintf(stderr, "tsc/ns=%.4f iters=%lu uid=%d\n", tsc_per_ns, (unsigned long)ITERS, getuid());

    if (argc > 1 && !strcmp(argv[1], "perm")) {
        // one short trial per C/B/D method, report samples delivered
        ITERS /= 4;
        char p[512];
        snprintf(p, sizeof p, "/dev/null");
        ftr = stdout;
        fsm = fopen(p, "w");
        frt = fsm;
        fgp = fsm;
        printf("rep\tmethod\twall\tlonggaps\tcpu\tn\tmatched\tovr\tngap\tringall\t...\n");
        for (int mi = 0; mi < NM; mi++) run_trial(0, mi);
    } else {
        char p[512];
        snprintf(p, sizeof p, "%s/trials.tsv", out);
        ftr = fopen(p, "w");
        snprintf(p, sizeof p, "%s/samples.tsv", out);
        fsm = fopen(p, "w");
        snprintf(p, sizeof p, "%s/rtt.tsv", out);
        frt = fopen(p, "w");
        snprintf(p, sizeof p, "%s/gaps.tsv", out);
        fgp = fopen(p, "w");
        int order[NM];
        srand(12345);
        for (int rep = 0; rep < reps; rep++) {
            for (int i = 0; i < NM; i++) order[i] = i;
            for (int i = NM - 1; i > 0; i--) {
                int j = rand() % (i + 1), t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            // baseline at the start and randomly placed again: two baselines per rep
            run_trial(rep, 0);
            for (int i = 0; i < NM; i++) run_trial(rep, order[i]);
            fprintf(stderr, ".");
        }
        fprintf(stderr, "\n");
    }
    atomic_store(&quit, 1);
    return 0;
}
