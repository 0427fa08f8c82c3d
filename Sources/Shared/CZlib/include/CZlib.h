#ifndef CZLIB_H
#define CZLIB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Compresses `length` bytes at `input` into one gzip member (RFC 1952, no file name, default
/// compression level) with the system zlib. On success returns 0 and sets `*output` to a buffer
/// from malloc (the caller frees it) holding `*output_length` bytes; otherwise returns zlib's
/// error code (Z_MEM_ERROR, …) and leaves `*output` NULL.
int czlib_gzip(const uint8_t *input, size_t length, uint8_t **output, size_t *output_length);

/// Decompresses gzip (or zlib) data: every member, up to `limit` bytes of output. On success
/// returns 0 and sets `*output` (from malloc, the caller frees it) and `*output_length`; otherwise
/// zlib's error code (Z_DATA_ERROR for bytes that are not gzip, Z_BUF_ERROR for output over `limit`
/// or a truncated stream).
int czlib_gunzip(const uint8_t *input, size_t length, size_t limit, uint8_t **output, size_t *output_length);

#ifdef __cplusplus
}
#endif

#endif
