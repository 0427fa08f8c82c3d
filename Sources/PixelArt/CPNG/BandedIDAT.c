#include "CPNG.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

// The IDAT stream of a PNG as independent bands (the pigz / mtpng scheme): the filtered scanlines
// are cut into bands of about one MiB; each band is deflated on its own, as raw deflate primed with
// the 32 KiB of filtered data before it (so back-references across the cut still work) and ended
// on a byte boundary (Z_SYNC_FLUSH), the last one with Z_FINISH. Concatenated behind one zlib
// header, with the bands' adler32s combined, they are one valid zlib stream. Band boundaries depend
// only on the image, never on the thread count, so the output is the same on every machine.

enum { BAND_BYTES = 1 << 20, WINDOW = 32768 };

typedef struct band_result {
    uint8_t *bytes;
    size_t size;
    uLong adler;
    size_t raw_size;
    int failed;
} band_result;

typedef struct band_job {
    const cpng_band_params *params;
    const uint8_t *pixels;
    size_t row_stride;
    size_t row_bytes;  // packed bytes per row, without the filter-type byte
    size_t bpp;        // bytes per complete pixel for the filters (at least 1)
    uint32_t rows_per_band;
    uint32_t band_count;
    uint32_t dictionary_rows;
    atomic_uint next_band;
    band_result *results;
} band_job;

/// Packs one row of one-sample-per-byte values into `bits`-bit samples, most significant first.
static void pack_row(const uint8_t *samples, size_t sample_count, int bits, uint8_t *packed, size_t packed_size) {
    memset(packed, 0, packed_size);
    for (size_t i = 0; i < sample_count; i++) {
        size_t bit = i * (size_t)bits;
        packed[bit / 8] |= (uint8_t)((samples[i] & ((1u << bits) - 1)) << (8 - bits - (int)(bit % 8)));
    }
}

static const uint8_t *raw_row(const band_job *job, uint32_t y, uint8_t *scratch) {
    const uint8_t *row = job->pixels + (size_t)y * job->row_stride;
    if (job->params->bit_depth >= 8) return row;
    size_t samples = (size_t)job->params->width * (size_t)job->params->channels;
    pack_row(row, samples, job->params->bit_depth, scratch, job->row_bytes);
    return scratch;
}

static inline uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
    int p = (int)a + (int)b - (int)c;
    int pa = abs(p - (int)a), pb = abs(p - (int)b), pc = abs(p - (int)c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

/// Writes `row` filtered with `type` (0 None … 4 Paeth) into `out`; `previous` is the row above
/// (zeros for the first row). Returns libpng's heuristic cost: the sum of the bytes as signed magnitudes.
static uint64_t filter_row(int type, const uint8_t *row, const uint8_t *previous, size_t n, size_t bpp, uint8_t *out) {
    uint64_t cost = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t a = i >= bpp ? row[i - bpp] : 0, b = previous[i], c = i >= bpp ? previous[i - bpp] : 0;
        uint8_t predicted;
        switch (type) {
            case 0: predicted = 0; break;
            case 1: predicted = a; break;
            case 2: predicted = b; break;
            case 3: predicted = (uint8_t)(((unsigned)a + (unsigned)b) / 2); break;
            default: predicted = paeth(a, b, c); break;
        }
        uint8_t value = (uint8_t)(row[i] - predicted);
        out[i] = value;
        cost += value < 128 ? value : 256 - value;
    }
    return cost;
}

/// Whether most bytes of `row` equal the byte one pixel to the left: a row of an upscale.
static int repeats_across(const uint8_t *row, size_t n, size_t bpp) {
    if (n <= bpp) return 0;
    size_t same = 0;
    for (size_t i = bpp; i < n; i++) same += row[i] == row[i - bpp];
    return same * 2 >= n - bpp;
}

/// Filters row `y` into `out` (filter-type byte, then the row). `scratch` holds 7 rows.
static void filter_scanline(const band_job *job, uint32_t y, uint8_t *out, uint8_t *scratch) {
    size_t n = job->row_bytes;
    uint8_t *current_packed = scratch, *previous_packed = scratch + n, *trial = scratch + 2 * n;
    const uint8_t *row = raw_row(job, y, current_packed);
    const uint8_t *previous = NULL;
    if (y > 0) {
        previous = raw_row(job, y - 1, previous_packed);
    } else {
        memset(previous_packed, 0, n);
        previous = previous_packed;
    }
    int mode = job->params->filter;
    int chosen;
    if (mode >= 0) {
        chosen = mode;
    } else if (mode == CPNG_FILTER_CONTENT && y > 0 && (memcmp(row, previous, n) == 0 || repeats_across(row, n, job->bpp))) {
        // A row that repeats the one above (every copy an integer upscale makes): Up is all zeros. The
        // first row of such a run, when its pixels repeat across too, gets Up as well: smaller and faster
        // than the heuristic's Sub on ×4 upscales (docs/pixelart.md#the-png-writer-banded-parallel-filtered-by-content).
        chosen = 2;
    } else {
        // libpng's heuristic: the filter whose output has the smallest sum of signed magnitudes.
        uint64_t best = UINT64_MAX;
        chosen = 0;
        for (int type = 0; type < 5; type++) {
            uint64_t cost = filter_row(type, row, previous, n, job->bpp, trial + (size_t)type * n);
            if (cost < best) {
                best = cost;
                chosen = type;
            }
        }
        out[0] = (uint8_t)chosen;
        memcpy(out + 1, trial + (size_t)chosen * n, n);
        return;
    }
    out[0] = (uint8_t)chosen;
    filter_row(chosen, row, previous, n, job->bpp, out + 1);
}

static int compress_band(band_job *job, uint32_t band, uint8_t *buffer, uint8_t *scratch) {
    band_result *result = &job->results[band];
    size_t line = job->row_bytes + 1;
    uint32_t first = band * job->rows_per_band;
    uint32_t last = first + job->rows_per_band;
    if (last > job->params->height) last = job->params->height;
    uint32_t dictionary_first = first > job->dictionary_rows ? first - job->dictionary_rows : 0;

    for (uint32_t y = dictionary_first; y < last; y++) {
        filter_scanline(job, y, buffer + (size_t)(y - dictionary_first) * line, scratch);
    }
    size_t dictionary_size = (size_t)(first - dictionary_first) * line;
    const uint8_t *data = buffer + dictionary_size;
    size_t size = (size_t)(last - first) * line;
    int is_last = band + 1 == job->band_count;

    z_stream stream;
    memset(&stream, 0, sizeof stream);
    // libpng's strategy for filtered rows; raw deflate (negative window bits): one header for all bands.
    int strategy = job->params->filter == 0 ? Z_DEFAULT_STRATEGY : Z_FILTERED;
    if (deflateInit2(&stream, job->params->compression_level, Z_DEFLATED, -15, 8, strategy) != Z_OK) return -1;
    if (dictionary_size > 0) {
        size_t window = dictionary_size < WINDOW ? dictionary_size : WINDOW;
        if (deflateSetDictionary(&stream, data - window, (uInt)window) != Z_OK) {
            deflateEnd(&stream);
            return -1;
        }
    }
    size_t capacity = deflateBound(&stream, (uLong)size) + 64;
    result->bytes = malloc(capacity);
    if (result->bytes == NULL) {
        deflateEnd(&stream);
        return -1;
    }
    stream.next_in = (Bytef *)data;
    stream.avail_in = (uInt)size;
    stream.next_out = result->bytes;
    stream.avail_out = (uInt)capacity;
    int flush = is_last ? Z_FINISH : Z_SYNC_FLUSH;
    for (;;) {
        int status = deflate(&stream, flush);
        if (is_last ? status == Z_STREAM_END : (status == Z_OK && stream.avail_in == 0 && stream.avail_out > 0)) break;
        if (status != Z_OK && status != Z_BUF_ERROR) {
            deflateEnd(&stream);
            return -1;
        }
        // Out of room (deflateBound should prevent it): grow and go on.
        size_t used = capacity - stream.avail_out;
        uint8_t *grown = realloc(result->bytes, capacity * 2);
        if (grown == NULL) {
            deflateEnd(&stream);
            return -1;
        }
        result->bytes = grown;
        stream.next_out = grown + used;
        stream.avail_out = (uInt)(capacity * 2 - used);
        capacity *= 2;
    }
    result->size = capacity - stream.avail_out;
    deflateEnd(&stream);
    result->adler = adler32(adler32(0L, Z_NULL, 0), data, (uInt)size);
    result->raw_size = size;
    return 0;
}

static void *band_worker(void *argument) {
    band_job *job = argument;
    size_t line = job->row_bytes + 1;
    uint8_t *buffer = malloc((size_t)(job->rows_per_band + job->dictionary_rows) * line);
    uint8_t *scratch = malloc(7 * job->row_bytes + 8);
    for (;;) {
        uint32_t band = atomic_fetch_add(&job->next_band, 1);
        if (band >= job->band_count) break;
        if (buffer == NULL || scratch == NULL || compress_band(job, band, buffer, scratch) != 0) {
            job->results[band].failed = 1;
        }
    }
    free(buffer);
    free(scratch);
    return NULL;
}

int cpng_banded_idat(const cpng_band_params *params, const void *pixels, size_t row_stride, uint8_t **output,
                     size_t *output_size) {
    *output = NULL;
    *output_size = 0;
    if (params->width == 0 || params->height == 0) return -1;
    band_job job;
    memset(&job, 0, sizeof job);
    job.params = params;
    job.pixels = pixels;
    job.row_stride = row_stride;
    size_t bits_per_pixel = (size_t)params->channels * (size_t)params->bit_depth;
    job.row_bytes = ((size_t)params->width * bits_per_pixel + 7) / 8;
    job.bpp = bits_per_pixel >= 8 ? bits_per_pixel / 8 : 1;
    size_t line = job.row_bytes + 1;
    job.rows_per_band = line >= BAND_BYTES ? 1 : (uint32_t)(BAND_BYTES / line);
    job.band_count = (params->height + job.rows_per_band - 1) / job.rows_per_band;
    job.dictionary_rows = (uint32_t)((WINDOW + line - 1) / line);
    atomic_init(&job.next_band, 0);
    job.results = calloc(job.band_count, sizeof *job.results);
    if (job.results == NULL) return -1;

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t threads = params->threads > 0 ? (uint32_t)params->threads : (uint32_t)(cores > 0 ? cores : 1);
    if (threads > job.band_count) threads = job.band_count;
    pthread_t *workers = threads > 1 ? calloc(threads - 1, sizeof *workers) : NULL;
    uint32_t started = 0;
    for (uint32_t i = 0; workers != NULL && i + 1 < threads; i++) {
        if (pthread_create(&workers[i], NULL, band_worker, &job) != 0) break;  // fewer helpers, same output
        started++;
    }
    band_worker(&job);
    for (uint32_t i = 0; i < started; i++) pthread_join(workers[i], NULL);
    free(workers);

    int failed = 0;
    size_t total = 2 + 4;
    uLong adler = adler32(0L, Z_NULL, 0);
    for (uint32_t band = 0; band < job.band_count; band++) {
        if (job.results[band].failed || job.results[band].bytes == NULL) failed = 1;
        total += job.results[band].size;
        adler = adler32_combine(adler, job.results[band].adler, (z_off_t)job.results[band].raw_size);
    }
    uint8_t *stream = failed ? NULL : malloc(total);
    if (stream != NULL) {
        // zlib header: deflate with a 32 KiB window, the level class zlib itself would write.
        int level = params->compression_level;
        int level_class = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
        unsigned header = (0x78u << 8) | ((unsigned)level_class << 6);
        if (header % 31 != 0) header += 31 - header % 31;
        stream[0] = (uint8_t)(header >> 8);
        stream[1] = (uint8_t)header;
        size_t offset = 2;
        for (uint32_t band = 0; band < job.band_count; band++) {
            memcpy(stream + offset, job.results[band].bytes, job.results[band].size);
            offset += job.results[band].size;
            free(job.results[band].bytes);  // as it is copied: the compressed data is not held twice
            job.results[band].bytes = NULL;
        }
        stream[offset++] = (uint8_t)(adler >> 24);
        stream[offset++] = (uint8_t)(adler >> 16);
        stream[offset++] = (uint8_t)(adler >> 8);
        stream[offset++] = (uint8_t)adler;
        *output = stream;
        *output_size = offset;
    }
    for (uint32_t band = 0; band < job.band_count; band++) free(job.results[band].bytes);
    free(job.results);
    return stream != NULL ? 0 : -1;
}
