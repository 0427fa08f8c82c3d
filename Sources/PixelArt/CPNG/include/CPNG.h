#ifndef CPNG_H
#define CPNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Glue between PixelArt and libpng. libpng reports errors with longjmp; every longjmp lands in a
/// setjmp inside this file, so no Swift frame is ever unwound. Functions return 0 on success or
/// -1 on failure with a NUL-terminated message in `message` (at most `message_size` bytes).

enum { CPNG_MESSAGE_SIZE = 256 };

/// What the header says about an image, and how pixels will be delivered: samples of 1/2/4-bit
/// images one per byte (values keep their bit depth), 16-bit samples big-endian, no other
/// transformation (palette stays indexed, tRNS stays a separate key).
typedef struct cpng_info {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    /// PNG colour type: 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA.
    int color_type;
    int interlaced;
    /// Bytes per delivered row (after unpacking low bit depths).
    size_t row_bytes;
    int palette_count;
    uint8_t palette[256][4];
    /// For gray and RGB images with a tRNS chunk: the transparent colour (1 or 3 samples).
    int has_transparent_key;
    uint16_t transparent_key[3];
} cpng_info;

typedef struct cpng_reader cpng_reader;

enum { CPNG_TOO_MANY_PIXELS = 1 };

/// Parses everything up to the first IDAT. `data` must stay valid until `cpng_reader_close`.
/// On success *reader must be closed with `cpng_reader_close`; on failure it is NULL.
/// Returns CPNG_TOO_MANY_PIXELS (with info->width and info->height set) when the header claims more
/// than `max_pixels` pixels; this is checked before libpng allocates its row buffers.
int cpng_reader_open(const void *data, size_t size, uint64_t max_pixels, cpng_info *info, cpng_reader **reader,
                     char *message, size_t message_size);

/// Decodes all rows into `pixels` (height rows of `row_stride` bytes, row_stride >= info.row_bytes)
/// and reads to the end of the file (so trailing CRC errors are noticed).
int cpng_reader_read(cpng_reader *reader, void *pixels, size_t row_stride, char *message, size_t message_size);

void cpng_reader_close(cpng_reader *reader);

typedef struct cpng_write_params {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    /// zlib level 0-9.
    int compression_level;
    /// PNG_FILTER_* mask, or -1 for libpng's default choice.
    int filters;
    int palette_count;
    const uint8_t (*palette)[4];
    int has_transparent_key;
    uint16_t transparent_key[3];
    /// 0: libpng writes the image data (its own filter choice, one thread). 1: the banded writer
    /// (`cpng_banded_idat`) with `band_filter` on `threads` threads; libpng writes the rest.
    int banded;
    int band_filter;
    int threads;
} cpng_write_params;

/// Encodes `pixels` (rows of `row_stride` bytes laid out as `cpng_info` describes) into a
/// malloc'ed buffer returned in *output / *output_size; free it with `cpng_free`.
int cpng_write(const cpng_write_params *params, const void *pixels, size_t row_stride, uint8_t **output,
               size_t *output_size, char *message, size_t message_size);

void cpng_free(void *pointer);

/// Filter choice of the banded writer: a PNG filter type 0 (None) … 4 (Paeth) for every row, or:
enum {
    /// A row equal to the one above, or whose pixels repeat across (an upscale's rows), gets Up
    /// untried; other rows libpng's heuristic.
    CPNG_FILTER_CONTENT = -1,
    /// libpng's heuristic on every row: the filter with the smallest sum of signed magnitudes.
    CPNG_FILTER_ADAPTIVE = -2,
};

typedef struct cpng_band_params {
    uint32_t width;
    uint32_t height;
    /// Samples per pixel (1 gray or indexed, 2 gray+alpha, 3 RGB, 4 RGBA).
    int channels;
    int bit_depth;
    int compression_level;
    int filter;
    /// Threads to deflate on; 0 for every online core. The bytes written do not depend on it.
    int threads;
} cpng_band_params;

/// The complete zlib stream of a PNG's image data (what the IDAT chunks hold), deflated in bands
/// of about 1 MiB in parallel. `pixels` as `cpng_write` takes them. Returns 0 and a malloc'ed
/// buffer (free with `cpng_free`), or -1 when out of memory or zlib failed.
int cpng_banded_idat(const cpng_band_params *params, const void *pixels, size_t row_stride, uint8_t **output,
                     size_t *output_size);

#ifdef __cplusplus
}
#endif

#endif
