#ifndef CPROBE_PROFILE_SOCKET_H
#define CPROBE_PROFILE_SOCKET_H

/// accept4(fd, NULL, NULL, SOCK_CLOEXEC): a connection that no child process inherits (glibc
/// declares accept4 only under _GNU_SOURCE, which Swift's Glibc module does not set).
int cprobe_accept_cloexec(int fd);

#endif
