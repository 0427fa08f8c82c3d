#include "CZlib.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int czlib_gzip(const uint8_t *input, size_t length, uint8_t **output, size_t *output_length) {
    *output = NULL;
    *output_length = 0;
    if (length > UINT_MAX) return Z_BUF_ERROR;  // one deflate call takes at most uInt bytes
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    // 15 + 16: the largest window, with a gzip header and trailer instead of zlib's.
    int status = deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    if (status != Z_OK) return status;
    uLong bound = deflateBound(&stream, (uLong)length);
    if (bound > UINT_MAX) {
        deflateEnd(&stream);
        return Z_BUF_ERROR;
    }
    uint8_t *buffer = malloc(bound > 0 ? bound : 1);
    if (buffer == NULL) {
        deflateEnd(&stream);
        return Z_MEM_ERROR;
    }
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = buffer;
    stream.avail_out = (uInt)bound;
    // deflateBound's size is enough for a single Z_FINISH call to end the stream.
    status = deflate(&stream, Z_FINISH);
    size_t written = (size_t)stream.total_out;
    deflateEnd(&stream);
    if (status != Z_STREAM_END) {
        free(buffer);
        return status == Z_OK ? Z_BUF_ERROR : status;
    }
    *output = buffer;
    *output_length = written;
    return Z_OK;
}

int czlib_gunzip(const uint8_t *input, size_t length, size_t limit, uint8_t **output, size_t *output_length) {
    *output = NULL;
    *output_length = 0;
    if (length > UINT_MAX) return Z_BUF_ERROR;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    // 15 + 32: the largest window, gzip or zlib header detected.
    int status = inflateInit2(&stream, 15 + 32);
    if (status != Z_OK) return status;
    size_t capacity = length * 4 + 1024, used = 0;
    uint8_t *buffer = malloc(capacity);
    if (buffer == NULL) {
        inflateEnd(&stream);
        return Z_MEM_ERROR;
    }
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    for (;;) {
        if (used == capacity) {
            if (capacity >= limit) {
                status = Z_BUF_ERROR;
                break;
            }
            size_t grown = capacity * 2 > limit ? limit : capacity * 2;
            uint8_t *larger = realloc(buffer, grown);
            if (larger == NULL) {
                status = Z_MEM_ERROR;
                break;
            }
            buffer = larger;
            capacity = grown;
        }
        size_t room = capacity - used;
        stream.next_out = buffer + used;
        stream.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
        status = inflate(&stream, Z_NO_FLUSH);
        used = (size_t)(stream.next_out - buffer);
        if (status == Z_STREAM_END) {
            // Another gzip member may follow (pprof files are one; `cat a.gz b.gz` is two).
            if (stream.avail_in == 0) break;
            status = inflateReset(&stream);
            if (status != Z_OK) break;
            continue;
        }
        if (status != Z_OK) break;
        if (stream.avail_in == 0 && stream.avail_out != 0) {
            status = Z_BUF_ERROR;  // truncated: the input ended inside the stream
            break;
        }
    }
    inflateEnd(&stream);
    if (status != Z_STREAM_END && status != Z_OK) {
        free(buffer);
        return status;
    }
    *output = buffer;
    *output_length = used;
    return 0;
}
