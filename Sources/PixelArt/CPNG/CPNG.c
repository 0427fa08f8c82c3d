#include "CPNG.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Error state shared by the reader and the writer: libpng's error callback copies the message
/// here and longjmps back to the setjmp of the C function that called into libpng.
typedef struct cpng_error {
    char message[CPNG_MESSAGE_SIZE];
} cpng_error;

static void cpng_on_error(png_structp png, png_const_charp text) {
    cpng_error *error = (cpng_error *)png_get_error_ptr(png);
    if (error != NULL) {
        snprintf(error->message, sizeof error->message, "%s", text != NULL ? text : "libpng error");
    }
    png_longjmp(png, 1);
}

static void cpng_on_warning(png_structp png, png_const_charp text) {
    // Warnings (bad ancillary chunks and the like) do not stop decoding; nothing to report.
    (void)png;
    (void)text;
}

static void cpng_copy_message(char *message, size_t message_size, const char *text) {
    if (message != NULL && message_size > 0) {
        snprintf(message, message_size, "%s", text);
    }
}

struct cpng_reader {
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size;
    size_t offset;
    png_bytep *rows;
    cpng_error error;
};

static void cpng_read_bytes(png_structp png, png_bytep out, size_t count) {
    cpng_reader *reader = (cpng_reader *)png_get_io_ptr(png);
    if (count > reader->size - reader->offset) {
        png_error(png, "file is truncated");
    }
    memcpy(out, reader->data + reader->offset, count);
    reader->offset += count;
}

void cpng_reader_close(cpng_reader *reader) {
    if (reader == NULL) return;
    png_destroy_read_struct(&reader->png, &reader->info, NULL);
    free(reader->rows);
    free(reader);
}

int cpng_reader_open(const void *data, size_t size, uint64_t max_pixels, cpng_info *info, cpng_reader **out,
                     char *message, size_t message_size) {
    *out = NULL;
    memset(info, 0, sizeof *info);
    if (size < 8 || png_sig_cmp((png_const_bytep)data, 0, 8) != 0) {
        cpng_copy_message(message, message_size, "not a PNG file (bad signature)");
        return -1;
    }
    cpng_reader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) {
        cpng_copy_message(message, message_size, "out of memory");
        return -1;
    }
    reader->data = data;
    reader->size = size;
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader->error, cpng_on_error, cpng_on_warning);
    if (reader->png == NULL || (reader->info = png_create_info_struct(reader->png)) == NULL) {
        cpng_reader_close(reader);
        cpng_copy_message(message, message_size, "cannot create libpng decoder");
        return -1;
    }
    if (setjmp(png_jmpbuf(reader->png))) {
        cpng_copy_message(message, message_size, reader->error.message);
        cpng_reader_close(reader);
        return -1;
    }
    png_set_read_fn(reader->png, reader, cpng_read_bytes);
    // The caller applies its own pixel limit; libpng's default one (1e6 per side) only stands
    // in the way of legitimate very wide strips. PNG's own maximum is 2^31-1.
    png_set_user_limits(reader->png, 0x7fffffff, 0x7fffffff);
    png_read_info(reader->png, reader->info);

    png_uint_32 width, height;
    int bit_depth, color_type, interlace;
    png_get_IHDR(reader->png, reader->info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    info->width = width;
    info->height = height;
    // Before png_read_update_info, which allocates row buffers sized by the claimed width.
    if ((uint64_t)width * (uint64_t)height > max_pixels) {
        cpng_reader_close(reader);
        return CPNG_TOO_MANY_PIXELS;
    }
    if (bit_depth < 8) png_set_packing(reader->png);
    int passes = png_set_interlace_handling(reader->png);
    (void)passes;
    png_read_update_info(reader->png, reader->info);

    info->width = width;
    info->height = height;
    info->bit_depth = bit_depth;
    info->color_type = color_type;
    info->interlaced = interlace != PNG_INTERLACE_NONE;
    info->row_bytes = png_get_rowbytes(reader->png, reader->info);

    if (color_type == PNG_COLOR_TYPE_PALETTE) {
        png_colorp palette = NULL;
        int count = 0;
        if (!png_get_PLTE(reader->png, reader->info, &palette, &count) || count <= 0) {
            png_error(reader->png, "palette image without a PLTE chunk");
        }
        info->palette_count = count;
        for (int i = 0; i < count; i++) {
            info->palette[i][0] = palette[i].red;
            info->palette[i][1] = palette[i].green;
            info->palette[i][2] = palette[i].blue;
            info->palette[i][3] = 255;
        }
    }
    if (png_get_valid(reader->png, reader->info, PNG_INFO_tRNS)) {
        png_bytep alphas = NULL;
        int alpha_count = 0;
        png_color_16p key = NULL;
        png_get_tRNS(reader->png, reader->info, &alphas, &alpha_count, &key);
        if (color_type == PNG_COLOR_TYPE_PALETTE) {
            for (int i = 0; i < alpha_count && i < info->palette_count; i++) info->palette[i][3] = alphas[i];
        } else if (key != NULL) {
            info->has_transparent_key = 1;
            if (color_type == PNG_COLOR_TYPE_GRAY) {
                info->transparent_key[0] = key->gray;
            } else {
                info->transparent_key[0] = key->red;
                info->transparent_key[1] = key->green;
                info->transparent_key[2] = key->blue;
            }
        }
    }
    *out = reader;
    return 0;
}

int cpng_reader_read(cpng_reader *reader, void *pixels, size_t row_stride, char *message, size_t message_size) {
    png_uint_32 height = png_get_image_height(reader->png, reader->info);
    if (reader->rows == NULL) {
        reader->rows = malloc((height > 0 ? height : 1) * sizeof(png_bytep));
        if (reader->rows == NULL) {
            cpng_copy_message(message, message_size, "out of memory");
            return -1;
        }
    }
    for (png_uint_32 y = 0; y < height; y++) reader->rows[y] = (png_bytep)pixels + (size_t)y * row_stride;
    if (setjmp(png_jmpbuf(reader->png))) {
        cpng_copy_message(message, message_size, reader->error.message);
        return -1;
    }
    png_read_image(reader->png, reader->rows);
    png_read_end(reader->png, NULL);
    return 0;
}

typedef struct cpng_output {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
} cpng_output;

static void cpng_write_bytes(png_structp png, png_bytep data, size_t count) {
    cpng_output *output = (cpng_output *)png_get_io_ptr(png);
    if (count > output->capacity - output->size) {
        size_t capacity = output->capacity > 0 ? output->capacity : 65536;
        while (count > capacity - output->size) {
            if (capacity > SIZE_MAX / 2) png_error(png, "output too large");
            capacity *= 2;
        }
        uint8_t *bytes = realloc(output->bytes, capacity);
        if (bytes == NULL) png_error(png, "out of memory");
        output->bytes = bytes;
        output->capacity = capacity;
    }
    memcpy(output->bytes + output->size, data, count);
    output->size += count;
}

static void cpng_flush(png_structp png) { (void)png; }

/// Everything the writer must release, kept in one struct that setjmp cannot clobber.
typedef struct cpng_writer {
    png_structp png;
    png_infop info;
    png_bytep *rows;
    uint8_t *idat;
    cpng_output output;
    cpng_error error;
} cpng_writer;

static void cpng_writer_release(cpng_writer *writer) {
    png_destroy_write_struct(&writer->png, &writer->info);
    free(writer->rows);
    free(writer->idat);
    free(writer->output.bytes);
    free(writer);
}

static int cpng_channels(int color_type) {
    switch (color_type) {
        case PNG_COLOR_TYPE_RGB: return 3;
        case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
        case PNG_COLOR_TYPE_RGB_ALPHA: return 4;
        default: return 1;
    }
}

/// The image data from the banded writer as IDAT chunks, then IEND (libpng's png_write_end would
/// insist that it wrote the IDATs itself). Errors longjmp to cpng_write's setjmp; the zlib stream
/// is kept in the writer so that it is freed there too.
static void cpng_write_idat_bands(cpng_writer *writer, const cpng_write_params *params, const void *pixels,
                                  size_t row_stride) {
    cpng_band_params band = {
        .width = params->width,
        .height = params->height,
        .channels = cpng_channels(params->color_type),
        .bit_depth = params->bit_depth,
        .compression_level = params->compression_level,
        .filter = params->band_filter,
        .threads = params->threads,
    };
    size_t size = 0;
    if (cpng_banded_idat(&band, pixels, row_stride, &writer->idat, &size) != 0) {
        png_error(writer->png, "out of memory or zlib failed while compressing the image data");
    }
    // Chunks of at most 1 MiB: any size up to 2^31-1 is valid, but some readers buffer whole chunks.
    for (size_t offset = 0; offset < size; offset += 1 << 20) {
        size_t count = size - offset < (1u << 20) ? size - offset : (1u << 20);
        png_write_chunk(writer->png, (png_const_bytep) "IDAT", writer->idat + offset, count);
    }
    png_write_chunk(writer->png, (png_const_bytep) "IEND", NULL, 0);
}

int cpng_write(const cpng_write_params *params, const void *pixels, size_t row_stride, uint8_t **output,
               size_t *output_size, char *message, size_t message_size) {
    *output = NULL;
    *output_size = 0;
    cpng_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) {
        cpng_copy_message(message, message_size, "out of memory");
        return -1;
    }
    writer->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &writer->error, cpng_on_error, cpng_on_warning);
    if (writer->png == NULL || (writer->info = png_create_info_struct(writer->png)) == NULL) {
        cpng_writer_release(writer);
        cpng_copy_message(message, message_size, "cannot create libpng encoder");
        return -1;
    }
    writer->rows = malloc((params->height > 0 ? params->height : 1) * sizeof(png_bytep));
    if (writer->rows == NULL) {
        cpng_writer_release(writer);
        cpng_copy_message(message, message_size, "out of memory");
        return -1;
    }
    for (uint32_t y = 0; y < params->height; y++) {
        writer->rows[y] = (png_bytep)pixels + (size_t)y * row_stride;
    }
    if (setjmp(png_jmpbuf(writer->png))) {
        cpng_copy_message(message, message_size, writer->error.message);
        cpng_writer_release(writer);
        return -1;
    }
    png_set_write_fn(writer->png, &writer->output, cpng_write_bytes, cpng_flush);
    png_set_compression_level(writer->png, params->compression_level);
    if (params->filters >= 0) png_set_filter(writer->png, PNG_FILTER_TYPE_BASE, params->filters);
    png_set_IHDR(writer->png, writer->info, params->width, params->height, params->bit_depth, params->color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    if (params->color_type == PNG_COLOR_TYPE_PALETTE) {
        png_color colors[256];
        png_byte alphas[256];
        int alpha_count = 0;
        for (int i = 0; i < params->palette_count; i++) {
            colors[i].red = params->palette[i][0];
            colors[i].green = params->palette[i][1];
            colors[i].blue = params->palette[i][2];
            alphas[i] = params->palette[i][3];
            if (alphas[i] != 255) alpha_count = i + 1;
        }
        png_set_PLTE(writer->png, writer->info, colors, params->palette_count);
        if (alpha_count > 0) png_set_tRNS(writer->png, writer->info, alphas, alpha_count, NULL);
    } else if (params->has_transparent_key) {
        png_color_16 key;
        memset(&key, 0, sizeof key);
        key.gray = params->transparent_key[0];
        key.red = params->transparent_key[0];
        key.green = params->transparent_key[1];
        key.blue = params->transparent_key[2];
        png_set_tRNS(writer->png, writer->info, NULL, 0, &key);
    }
    png_write_info(writer->png, writer->info);
    if (params->banded) {
        cpng_write_idat_bands(writer, params, pixels, row_stride);
    } else {
        if (params->bit_depth < 8) png_set_packing(writer->png);
        png_write_image(writer->png, writer->rows);
        png_write_end(writer->png, NULL);
    }

    *output = writer->output.bytes;
    *output_size = writer->output.size;
    writer->output.bytes = NULL;
    cpng_writer_release(writer);
    return 0;
}

void cpng_free(void *pointer) { free(pointer); }
