// The breadcrumb's crash handler: a fatal signal is written into the mapped breadcrumb (one store,
// async-signal-safe), then the handler that was there before runs as if Probe had not been there.
#include "Breadcrumb.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

void cprobe_copy_field(char *field, size_t capacity, const char *text) {
    if (capacity == 0) return;
    size_t i = 0;
    if (text)
        for (; i + 1 < capacity && text[i]; i++) field[i] = text[i];
    for (; i < capacity; i++) field[i] = 0;
}

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
#define FATAL_SIGNAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])

static _Atomic(cprobe_breadcrumb *) crash_breadcrumb;
static struct sigaction previous_actions[FATAL_SIGNAL_COUNT];
static int installed;

static int signal_index(int signo) {
    for (size_t i = 0; i < FATAL_SIGNAL_COUNT; i++)
        if (fatal_signals[i] == signo) return (int)i;
    return -1;
}

static void crash_handler(int signo, siginfo_t *info, void *context) {
    (void)context;
    cprobe_breadcrumb *breadcrumb = atomic_load_explicit(&crash_breadcrumb, memory_order_acquire);
    if (breadcrumb && breadcrumb->fatal_signal == 0) breadcrumb->fatal_signal = signo;
    int index = signal_index(signo);
    // Put back what was there before: the Swift runtime's backtracer, another crash reporter, or
    // the default action (which ends the process with this signal and its core dump).
    if (index >= 0) sigaction(signo, &previous_actions[index], NULL);
    // A fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE from the kernel) happens again when the handler
    // returns, now delivered to the restored handler with its original details. A signal that was
    // sent (abort(), kill, raise) or a SIGTRAP (x86's int3 does not repeat; aarch64's brk, Swift's
    // trap there, would) is raised again at once.
    int sent = info == NULL || info->si_code <= 0;
    if (sent || signo == SIGABRT || signo == SIGTRAP) raise(signo);
}

int cprobe_breadcrumb_install_crash_handler(cprobe_breadcrumb *breadcrumb) {
    atomic_store_explicit(&crash_breadcrumb, breadcrumb, memory_order_release);
    if (installed) return 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = crash_handler;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < FATAL_SIGNAL_COUNT; i++) {
        if (sigaction(fatal_signals[i], &action, &previous_actions[i]) != 0) {
            int error = errno;
            for (size_t j = 0; j < i; j++) sigaction(fatal_signals[j], &previous_actions[j], NULL);
            return error;
        }
    }
    installed = 1;
    return 0;
}

void cprobe_breadcrumb_uninstall_crash_handler(void) {
    atomic_store_explicit(&crash_breadcrumb, NULL, memory_order_release);
    if (!installed) return;
    for (size_t i = 0; i < FATAL_SIGNAL_COUNT; i++) {
        struct sigaction current;
        if (sigaction(fatal_signals[i], NULL, &current) == 0 && (current.sa_flags & SA_SIGINFO) &&
            current.sa_sigaction == crash_handler)
            sigaction(fatal_signals[i], &previous_actions[i], NULL);
    }
    installed = 0;
}
