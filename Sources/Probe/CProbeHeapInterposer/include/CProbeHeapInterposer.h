#ifndef CPROBE_HEAP_INTERPOSER_H
#define CPROBE_HEAP_INTERPOSER_H

/// 1 when the process's `malloc` is this target's: linked into the executable, the dynamic linker
/// binds every library's calls to it. 0 when something else's comes first (ProbeHeap in a shared
/// library the executable does not export malloc from).
int cprobe_heap_interposed(void);

#endif
