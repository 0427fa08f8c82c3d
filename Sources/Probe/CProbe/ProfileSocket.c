#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>

#include "ProfileSocket.h"

int cprobe_accept_cloexec(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC); }
