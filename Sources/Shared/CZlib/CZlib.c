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
